//! [`Auto`]: a parameter whose default is derived from other parameters (a variant, a rule,
//! the link), written `"auto"` in a queue table.

use serde::de::value::{BoolDeserializer, F64Deserializer, I64Deserializer, StrDeserializer, U64Deserializer};
use serde::de::{self, Deserializer, IntoDeserializer};
use serde::{Deserialize, Serialize, Serializer};
use std::fmt;
use std::marker::PhantomData;

/// `"auto"` or a value.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub enum Auto<T> {
    #[default]
    Auto,
    Value(T),
}

impl<T: Copy> Auto<T> {
    /// The value, or `default` when automatic.
    pub fn or(self, default: T) -> T {
        match self {
            Auto::Auto => default,
            Auto::Value(v) => v,
        }
    }
    pub fn value(self) -> Option<T> {
        match self {
            Auto::Auto => None,
            Auto::Value(v) => Some(v),
        }
    }
}

impl<T: Serialize> Serialize for Auto<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Auto::Auto => s.serialize_str("auto"),
            Auto::Value(v) => v.serialize(s),
        }
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Auto<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        fn with<'de, T: Deserialize<'de>, E: de::Error, D: Deserializer<'de, Error = de::value::Error>>(d: D) -> Result<Auto<T>, E> {
            T::deserialize(d).map(Auto::Value).map_err(|e| E::custom(format!("{e} (or \"auto\")")))
        }
        impl<'de, T: Deserialize<'de>> de::Visitor<'de> for V<T> {
            type Value = Auto<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("\"auto\" or a value")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Auto<T>, E> {
                if s == "auto" {
                    return Ok(Auto::Auto);
                }
                let d: StrDeserializer<'_, de::value::Error> = s.into_deserializer();
                with(d)
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Auto<T>, E> {
                let d: F64Deserializer<de::value::Error> = v.into_deserializer();
                with(d)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Auto<T>, E> {
                let d: I64Deserializer<de::value::Error> = v.into_deserializer();
                with(d)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Auto<T>, E> {
                let d: U64Deserializer<de::value::Error> = v.into_deserializer();
                with(d)
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Auto<T>, E> {
                let d: BoolDeserializer<de::value::Error> = v.into_deserializer();
                with(d)
            }
        }
        d.deserialize_any(V(PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::QueueLimit;
    use serde::de::value::{Error, F64Deserializer, StrDeserializer};

    fn from_str<T: for<'a> Deserialize<'a>>(s: &str) -> Result<Auto<T>, Error> {
        let d: StrDeserializer<'_, Error> = s.into_deserializer();
        Auto::<T>::deserialize(d)
    }

    // tests "auto" and values of both string-typed and numeric parameters, and the error text.
    #[test]
    fn parses_auto_and_values() {
        assert_eq!(from_str::<QueueLimit>("auto").unwrap(), Auto::Auto);
        assert_eq!(from_str::<QueueLimit>("5pkt").unwrap(), Auto::Value(QueueLimit::Packets(5)));
        let d: F64Deserializer<Error> = 0.25f64.into_deserializer();
        assert_eq!(Auto::<f64>::deserialize(d).unwrap(), Auto::Value(0.25));
        let e = from_str::<QueueLimit>("5").unwrap_err().to_string();
        assert!(e.contains("\"auto\""), "{e}");
        assert_eq!(Auto::Value(3).or(4), 3);
        assert_eq!(Auto::Auto.or(4), 4);
    }

    // tests each kind of TOML value a parameter can hold — signed and unsigned integers and
    // booleans as well as strings and floats — reaches the parameter's own type, and that a
    // value of no kind a parameter takes names what was expected.
    #[test]
    fn integers_and_booleans_reach_the_parameter() {
        use serde::de::value::{BoolDeserializer, I64Deserializer, U64Deserializer, UnitDeserializer};
        let d: I64Deserializer<Error> = (-3i64).into_deserializer();
        assert_eq!(Auto::<i64>::deserialize(d).unwrap(), Auto::Value(-3));
        let d: U64Deserializer<Error> = 7u64.into_deserializer();
        assert_eq!(Auto::<u64>::deserialize(d).unwrap(), Auto::Value(7));
        let d: BoolDeserializer<Error> = true.into_deserializer();
        assert_eq!(Auto::<bool>::deserialize(d).unwrap(), Auto::Value(true));
        let d: UnitDeserializer<Error> = ().into_deserializer();
        let e = Auto::<u64>::deserialize(d).unwrap_err().to_string();
        assert_eq!(e, "invalid type: unit value, expected \"auto\" or a value");
    }
}
