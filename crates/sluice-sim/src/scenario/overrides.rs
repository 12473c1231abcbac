//! Overrides: `flows[0].count = 90`, `topology.queue.kind = "drop_tail"`, set on the parsed TOML
//! tree of a scenario before the schema reads it (docs/scenarios.md, "Overrides").
//!
//! An override only edits the tree, so the schema judges the result as it would a file that
//! said the same: a misspelt key fails with the schema's own unknown-field error, a bad value
//! with the field's own message. What only the override can get wrong (a path that indexes past
//! an array's end, or descends into a number or a string) fails here, naming the override.

use super::error::ScenarioError;

/// One override: a dotted path with `[i]` indices and the value to put there.
#[derive(Clone, Debug, PartialEq)]
pub struct Override {
    pub path: String,
    pub value: toml::Value,
}

impl Override {
    pub fn new(path: impl Into<String>, value: toml::Value) -> Self {
        Override { path: path.into(), value }
    }

    /// Parse a command-line `PATH=VALUE`. `VALUE` is read as a TOML value (`90`, `true`,
    /// `"10ms"`, `[1, 2]`, `{ kind = "drop_tail", limit = "20pkt" }`); anything that is not one
    /// is taken as a plain string, so `--set topology.queue.kind=drop_tail` needs no quotes.
    pub fn parse_arg(arg: &str) -> Result<Override, String> {
        let Some((path, value)) = arg.split_once('=') else {
            return Err(format!("--set {arg:?}: expected PATH=VALUE, e.g. flows[0].count=90"));
        };
        let path = path.trim();
        parse_path(path).map_err(|e| format!("--set {arg:?}: {e}"))?;
        Ok(Override::new(path, parse_value(value.trim())))
    }
}

/// A TOML value (`90`, `"x"`, `[1, 2]`, an inline table), or else the text as a string.
pub fn parse_value(text: &str) -> toml::Value {
    use serde::Deserialize;
    toml::Value::deserialize(toml::de::ValueDeserializer::new(text)).unwrap_or_else(|_| toml::Value::String(text.to_string()))
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Seg {
    Key(String),
    Index(usize),
}

/// `flows[0].tcp.sack` → `flows`, `[0]`, `tcp`, `sack`. Keys are TOML bare keys (letters,
/// digits, `_`, `-`).
fn parse_path(path: &str) -> Result<Vec<Seg>, String> {
    let bad = || format!("{path:?} is not an override path: expected dotted keys with [i] indices, e.g. flows[0].count");
    let bytes = path.as_bytes();
    let mut segs = Vec::new();
    let mut i = 0;
    let key_char = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'-';
    loop {
        // A key: at the start, or after a dot.
        let start = i;
        while i < bytes.len() && key_char(bytes[i]) {
            i += 1;
        }
        if i == start {
            return Err(bad());
        }
        segs.push(Seg::Key(path[start..i].to_string()));
        // Any number of indices.
        while i < bytes.len() && bytes[i] == b'[' {
            let open = i + 1;
            let close = path[open..].find(']').map(|k| open + k).ok_or_else(bad)?;
            let n = path[open..close].parse::<usize>().map_err(|_| bad())?;
            if !path[open..close].bytes().all(|b| b.is_ascii_digit()) {
                return Err(bad());
            }
            segs.push(Seg::Index(n));
            i = close + 1;
        }
        match bytes.get(i) {
            None => return Ok(segs),
            Some(b'.') => i += 1,
            Some(_) => return Err(bad()),
        }
    }
}

/// Set every override on `root`, in order (a later one may change what an earlier one set).
pub fn apply(root: &mut toml::Table, overrides: &[Override]) -> Result<(), ScenarioError> {
    for o in overrides {
        apply_one(root, o)?;
    }
    Ok(())
}

fn apply_one(root: &mut toml::Table, o: &Override) -> Result<(), ScenarioError> {
    let segs = parse_path(&o.path).map_err(|e| ScenarioError::new(o.path.clone(), e))?;
    let fail = |msg: String| ScenarioError::new(o.path.clone(), format!("override: {msg}"));
    let mut cur = root;
    // The path walked so far, as the error names it.
    let mut at = String::new();
    let mut k = 0;
    while k < segs.len() {
        let Seg::Key(key) = &segs[k] else { unreachable!("a path alternates keys and indices, starting with a key") };
        let name = if at.is_empty() { key.clone() } else { format!("{at}.{key}") };
        // Indices after this key, then what follows them.
        let mut j = k + 1;
        while matches!(segs.get(j), Some(Seg::Index(_))) {
            j += 1;
        }
        let last = j == segs.len();
        if j == k + 1 {
            if last {
                cur.insert(key.clone(), o.value.clone());
                return Ok(());
            }
            // A missing table is created: the schema then says whether the key may be there.
            let next = cur.entry(key.clone()).or_insert_with(|| toml::Value::Table(toml::Table::new()));
            cur = match next {
                toml::Value::Table(t) => t,
                other => return Err(fail(format!("`{name}` is {}, not a table", article(other)))),
            };
            at = name;
            k = j;
            continue;
        }
        // key[i][j]...: each index must point inside an existing array.
        let mut v = match cur.get_mut(key.as_str()) {
            Some(v) => v,
            None => return Err(fail(format!("there is no `{name}` to index (index {} is past the end)", index(&segs[k + 1])))),
        };
        let mut vname = name;
        for seg in &segs[k + 1..j] {
            let n = index(seg);
            let toml::Value::Array(a) = v else {
                return Err(fail(format!("`{vname}` is {}, not an array", article(v))));
            };
            let len = a.len();
            let Some(item) = a.get_mut(n) else {
                let entries = if len == 1 { "1 entry".to_string() } else { format!("{len} entries") };
                return Err(fail(format!("index {n} is past the end of `{vname}` ({entries})")));
            };
            vname = format!("{vname}[{n}]");
            v = item;
        }
        if last {
            *v = o.value.clone();
            return Ok(());
        }
        cur = match v {
            toml::Value::Table(t) => t,
            other => return Err(fail(format!("`{vname}` is {}, not a table", article(other)))),
        };
        at = vname;
        k = j;
    }
    Ok(())
}

fn index(seg: &Seg) -> usize {
    match seg {
        Seg::Index(n) => *n,
        Seg::Key(_) => unreachable!("called on an index"),
    }
}

/// "a string", "an integer", … for error messages.
fn article(v: &toml::Value) -> String {
    let t = v.type_str();
    let an = matches!(t.as_bytes().first(), Some(b'a' | b'e' | b'i' | b'o' | b'u'));
    format!("{} {t}", if an { "an" } else { "a" })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(text: &str) -> toml::Table {
        text.parse().unwrap()
    }

    #[test]
    fn paths_parse_into_keys_and_indices() {
        assert_eq!(parse_path("a.b").unwrap(), vec![Seg::Key("a".into()), Seg::Key("b".into())]);
        assert_eq!(parse_path("flows[10].tcp.sack").unwrap(), vec![Seg::Key("flows".into()), Seg::Index(10), Seg::Key("tcp".into()), Seg::Key("sack".into())]);
        assert_eq!(parse_path("m[1][2]").unwrap(), vec![Seg::Key("m".into()), Seg::Index(1), Seg::Index(2)]);
        for bad in ["", ".a", "a.", "a..b", "a[", "a[x]", "a[-1]", "a[+1]", "[0]", "a b", "a[0]b"] {
            assert!(parse_path(bad).is_err(), "{bad:?} should be refused");
        }
    }

    #[test]
    fn values_are_toml_or_else_strings() {
        assert_eq!(parse_value("90"), toml::Value::Integer(90));
        assert_eq!(parse_value("0.5"), toml::Value::Float(0.5));
        assert_eq!(parse_value("true"), toml::Value::Boolean(true));
        assert_eq!(parse_value("\"10ms\""), toml::Value::String("10ms".into()));
        assert_eq!(parse_value("drop_tail"), toml::Value::String("drop_tail".into()));
        assert_eq!(parse_value("10Mbps"), toml::Value::String("10Mbps".into()));
        assert_eq!(parse_value("[1, 2]"), toml::Value::Array(vec![toml::Value::Integer(1), toml::Value::Integer(2)]));
        let t = parse_value("{ kind = \"drop_tail\", limit = \"20pkt\" }");
        assert_eq!(t.get("limit").and_then(|v| v.as_str()), Some("20pkt"));
        assert_eq!(Override::parse_arg("flows[0].count = 90").unwrap(), Override::new("flows[0].count", toml::Value::Integer(90)));
        assert!(Override::parse_arg("flows[0].count").unwrap_err().contains("PATH=VALUE"));
    }

    #[test]
    fn sets_replace_create_and_index() {
        let mut t = table("[topology]\nqueue = { kind = \"red\" }\n[[flows]]\ncount = 1\n[[flows]]\ncount = 2\n");
        let ov = [
            Override::new("topology.queue.kind", toml::Value::String("drop_tail".into())),
            Override::new("flows[1].count", toml::Value::Integer(90)),
            Override::new("flows[0].tcp.sack", toml::Value::Boolean(false)),
            Override::new("monitor.queue_sample", toml::Value::String("1ms".into())),
        ];
        apply(&mut t, &ov).unwrap();
        let want = table("[topology]\nqueue = { kind = \"drop_tail\" }\n[[flows]]\ncount = 1\ntcp = { sack = false }\n[[flows]]\ncount = 90\n[monitor]\nqueue_sample = \"1ms\"\n");
        assert_eq!(t, want);
    }

    #[test]
    fn past_the_end_and_into_a_scalar_fail_naming_the_override() {
        let t = table("name = \"x\"\n[[flows]]\ncount = 1\n[[flows]]\ncount = 2\n");
        let cases = [
            ("flows[2].count", "override: index 2 is past the end of `flows` (2 entries)"),
            ("flows[0][0]", "override: `flows[0]` is a table, not an array"),
            ("name.x", "override: `name` is a string, not a table"),
            ("name[0]", "override: `name` is a string, not an array"),
            ("flows[0].count.x", "override: `flows[0].count` is an integer, not a table"),
            ("nothing[0]", "override: there is no `nothing` to index (index 0 is past the end)"),
        ];
        for (path, msg) in cases {
            let e = apply(&mut t.clone(), &[Override::new(path, toml::Value::Integer(1))]).unwrap_err();
            assert_eq!((e.path.as_str(), e.message.as_str()), (path, msg));
        }
    }
}
