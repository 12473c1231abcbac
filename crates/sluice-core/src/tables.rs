//! Reading the `{ kind = "...", ... }` tables of a TOML configuration, for the simulator's
//! scenarios and the gateway's configuration alike (feature `toml`): the same keys, defaults and
//! one-line errors naming the field in both.

use crate::qdisc::{Profile, QdiscConfig};

/// What is wrong and where: `path` names the field (`topology.queue.max_th`), `allowed` lists
/// the values a `kind` may take when the error is about one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableError {
    pub path: String,
    pub message: String,
    pub allowed: Vec<String>,
}

impl TableError {
    fn new(path: impl Into<String>, message: impl Into<String>) -> TableError {
        TableError { path: path.into(), message: message.into(), allowed: Vec::new() }
    }
}

impl std::fmt::Display for TableError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

/// `{ kind = ..., rest }`: the kind (one of `kinds`) and the rest of the table.
pub fn kind_of(v: &toml::Value, path: &str, kinds: &[&str]) -> Result<(String, toml::map::Map<String, toml::Value>), TableError> {
    let list = kinds.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ");
    let fail = |at: String, message: String| Err(TableError { path: at, message, allowed: kinds.iter().map(|k| k.to_string()).collect() });
    let Some(t) = v.as_table() else {
        return fail(path.to_string(), format!("expected a table with `kind` = one of {list}"));
    };
    let mut rest = t.clone();
    let kind = match rest.remove("kind") {
        Some(toml::Value::String(k)) => k,
        Some(_) => return fail(format!("{path}.kind"), format!("expected a string, one of {list}")),
        None => return fail(format!("{path}.kind"), format!("missing; one of {list}")),
    };
    if !kinds.contains(&kind.as_str()) {
        return fail(format!("{path}.kind"), format!("unknown kind `{kind}`, expected one of {list}"));
    }
    Ok((kind, rest))
}

/// A queue table (`{ kind = "codel", target = "5ms" }`): keys left out take the discipline's
/// defaults under `profile`; an unknown key, a missing required key, a value of the wrong type
/// and a value out of range are each an error naming the key (`egress[0].qdisc.target`).
pub fn qdisc(v: &toml::Value, path: &str, profile: Profile) -> Result<QdiscConfig, TableError> {
    let (kind, given) = kind_of(v, path, QdiscConfig::KINDS)?;
    let base = QdiscConfig::defaults(&kind, profile).expect("kind_of admits only QdiscConfig::KINDS");
    let Ok(toml::Value::Table(mut table)) = toml::Value::try_from(&base) else {
        unreachable!("a queue config serializes to a table")
    };
    table.remove("kind");
    for (key, v) in given.iter() {
        if !table.contains_key(key) {
            let allowed = table.keys().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ");
            return Err(TableError::new(format!("{path}.{key}"), format!("unknown field for kind \"{kind}\"; its fields: {allowed}")));
        }
        table.insert(key.clone(), v.clone());
    }
    if let Some(key) = QdiscConfig::required(&kind).iter().find(|k| !given.contains_key(**k)) {
        return Err(TableError::new(format!("{path}.{key}"), format!("missing: kind \"{kind}\" has no default for it")));
    }
    let mut track = serde_path_to_error::Track::new();
    let cfg = QdiscConfig::deserialize_kind(&kind, serde_path_to_error::Deserializer::new(toml::Value::Table(table), &mut track)).map_err(|e| {
        let at = track.path().to_string();
        let full = if at == "." { path.to_string() } else { format!("{path}.{at}") };
        let mut msg = e.to_string().replace('\n', " ").trim().to_owned();
        // The value deserializer appends its own " in `a.b`"; the full path is already in front.
        if let Some(i) = msg.rfind(" in `") {
            if msg.ends_with('`') {
                msg.truncate(i);
            }
        }
        TableError::new(full, msg)
    })?;
    cfg.validate().map_err(|e| TableError::new(format!("{path}.{}", e.field), e.message))?;
    Ok(cfg)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(text: &str) -> Result<QdiscConfig, TableError> {
        let v: toml::Value = toml::from_str(&format!("q = {text}")).expect("valid TOML");
        qdisc(&v["q"], "egress[0].qdisc", Profile::Sluice)
    }

    #[test]
    fn defaults_fill_what_is_left_out() {
        let c = q(r#"{ kind = "codel" }"#).unwrap();
        assert_eq!(c, QdiscConfig::defaults("codel", Profile::Sluice).unwrap());
        let d = q(r#"{ kind = "codel", target = "7ms" }"#).unwrap();
        assert_ne!(c, d, "a given key replaces the default");
    }

    #[test]
    fn errors_name_the_field() {
        let e = q(r#"{ kind = "codel", target = "5 ms" }"#).unwrap_err();
        assert_eq!(e.path, "egress[0].qdisc.target");
        assert!(e.message.starts_with("expected a duration"), "{e}");
        let e = q(r#"{ kind = "codel", tagret = "5ms" }"#).unwrap_err();
        assert_eq!(e.path, "egress[0].qdisc.tagret");
        assert!(e.message.starts_with("unknown field for kind \"codel\"; its fields: "), "{e}");
        let e = q(r#"{ kind = "codle" }"#).unwrap_err();
        assert_eq!((e.path.as_str(), e.allowed.len()), ("egress[0].qdisc.kind", QdiscConfig::KINDS.len()));
        assert!(e.message.starts_with("unknown kind `codle`, expected one of `"), "{e}");
        let e = q(r#""codel""#).unwrap_err();
        assert_eq!(e.path, "egress[0].qdisc");
        let e = q(r#"{ target = "5ms" }"#).unwrap_err();
        assert_eq!((e.path.as_str(), e.message.starts_with("missing; one of")), ("egress[0].qdisc.kind", true));
    }

    #[test]
    fn a_required_key_without_a_default_is_named() {
        for kind in QdiscConfig::KINDS {
            if let Some(key) = QdiscConfig::required(kind).first() {
                let e = q(&format!("{{ kind = \"{kind}\" }}")).unwrap_err();
                assert_eq!(e.path, format!("egress[0].qdisc.{key}"));
                assert!(e.message.contains("has no default"), "{e}");
            }
        }
    }
}
