//! Character Card V2 and V3 as their public specifications define them
//! (github.com/malfoyslastname/character-card-spec-v2,
//! github.com/kwaroran/character-card-spec-v3): the fields kibitz reads,
//! typed, and everything else kept as it came so an export loses nothing
//! kibitz keeps. Parsing names the field of every problem.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::CardError;

/// Lorebook entries a card may bring; a lorebook is lore told one line at a
/// time, not a database.
pub const MAX_LORE_ENTRIES: usize = 1000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spec {
    /// TavernAI's flat card, read as a V2 card's data.
    V1,
    V2,
    V3,
}

impl Spec {
    pub fn name(self) -> &'static str {
        match self {
            Spec::V1 => "a V1 card",
            Spec::V2 => "chara_card_v2",
            Spec::V3 => "chara_card_v3",
        }
    }
}

/// A card: which spec, and its `data`.
#[derive(Debug, Clone, PartialEq)]
pub struct Card {
    pub spec: Spec,
    pub data: CardData,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CardData {
    pub name: String,
    pub description: String,
    pub personality: String,
    pub scenario: String,
    pub first_mes: String,
    pub mes_example: String,
    pub creator_notes: String,
    pub system_prompt: String,
    pub post_history_instructions: String,
    pub alternate_greetings: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub character_book: Option<Lorebook>,
    pub tags: Vec<String>,
    pub creator: String,
    pub character_version: String,
    pub extensions: Map<String, Value>,
    /// V3: portraits, emotions, backgrounds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub assets: Option<Vec<Asset>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nickname: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group_only_greetings: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub creation_date: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modification_date: Option<Value>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Lorebook {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scan_depth: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token_budget: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recursive_scanning: Option<bool>,
    pub extensions: Map<String, Value>,
    pub entries: Vec<LoreEntry>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LoreEntry {
    pub keys: Vec<String>,
    pub content: String,
    pub extensions: Map<String, Value>,
    pub enabled: bool,
    pub insertion_order: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub case_sensitive: Option<bool>,
    pub use_regex: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub constant: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priority: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selective: Option<bool>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub secondary_keys: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub position: Option<String>,
}

impl Default for LoreEntry {
    fn default() -> Self {
        LoreEntry {
            keys: Vec::new(),
            content: String::new(),
            extensions: Map::new(),
            enabled: true,
            insertion_order: 0,
            case_sensitive: None,
            use_regex: false,
            constant: None,
            name: None,
            priority: None,
            id: None,
            comment: None,
            selective: None,
            secondary_keys: Vec::new(),
            position: None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Asset {
    #[serde(rename = "type")]
    pub kind: String,
    pub uri: String,
    pub name: String,
    pub ext: String,
}

impl Card {
    /// A card from its JSON text: the spec it declares, checked for hostile
    /// text in every field, then typed field by field.
    pub fn from_json(text: &[u8]) -> Result<Card, CardError> {
        let root: Value = serde_json::from_slice(text).map_err(|e| CardError::Json(e.to_string()))?;
        let Value::Object(mut root) = root else {
            return Err(CardError::field("(the card)", "must be a JSON object"));
        };
        reject_hostile(&Value::Object(root.clone()), &mut String::new())?;
        let spec = match root.get("spec").and_then(Value::as_str) {
            Some("chara_card_v3") => Spec::V3,
            Some("chara_card_v2") => Spec::V2,
            Some(other) => {
                let other: String = other.chars().take(40).collect();
                return Err(CardError::field(
                    "spec",
                    format!("'{other}' is neither chara_card_v2 nor chara_card_v3"),
                ));
            }
            None if root.contains_key("name") => Spec::V1,
            None => return Err(CardError::field("spec", "missing: not a character card")),
        };
        let (data, at) = match spec {
            Spec::V1 => (Value::Object(root), ""),
            _ => match root.remove("data") {
                Some(data @ Value::Object(_)) => (data, "data."),
                _ => return Err(CardError::field("data", "must be an object holding the card")),
            },
        };
        let data = without_nulls(data);
        let entries = data
            .pointer("/character_book/entries")
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        if entries > MAX_LORE_ENTRIES {
            return Err(CardError::field(
                format!("{at}character_book.entries"),
                format!("{entries} entries; a persona takes at most {MAX_LORE_ENTRIES}"),
            ));
        }
        let data: CardData = serde_path_to_error::deserialize(data).map_err(|e| {
            let field = format!("{at}{}", e.path());
            CardError::field(field, e.into_inner().to_string())
        })?;
        Ok(Card { spec, data })
    }

    /// The card's JSON, as `spec` writes it.
    pub fn to_json(&self) -> Value {
        let data = serde_json::to_value(&self.data).expect("a card serializes");
        match self.spec {
            Spec::V1 => data,
            Spec::V2 => serde_json::json!({ "spec": "chara_card_v2", "spec_version": "2.0", "data": data }),
            Spec::V3 => serde_json::json!({ "spec": "chara_card_v3", "spec_version": "3.0", "data": data }),
        }
    }
}

/// Many tools write `null` for a field they leave empty: read it as absent.
fn without_nulls(v: Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.into_iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k, without_nulls(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.into_iter().map(without_nulls).collect()),
        other => other,
    }
}

/// Every string of the card, keys included, is free of control characters,
/// direction overrides and active markup (a script, a frame, an event
/// handler, a `javascript:` link): a card is text for people and a model.
fn reject_hostile(v: &Value, path: &mut String) -> Result<(), CardError> {
    match v {
        Value::String(s) => hostile(s).map_or(Ok(()), |why| Err(CardError::field(shown(path), why))),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                reject_hostile(item, path)?;
                path.truncate(len);
            }
            Ok(())
        }
        Value::Object(m) => {
            for (k, item) in m {
                let len = path.len();
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(&k.chars().take(60).collect::<String>());
                if let Some(why) = hostile(k) {
                    return Err(CardError::field(shown(path), format!("its name {why}")));
                }
                reject_hostile(item, path)?;
                path.truncate(len);
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

fn shown(path: &str) -> String {
    if path.is_empty() {
        "(the card)".into()
    } else {
        path.to_string()
    }
}

/// Why this text may not come in, if it may not.
pub fn hostile(s: &str) -> Option<String> {
    if let Some(c) = s.chars().find(|&c| is_forbidden_char(c)) {
        return Some(format!("holds the control character U+{:04X}", c as u32));
    }
    let lower = s.to_lowercase();
    for (needle, what) in [
        ("<script", "a <script> tag"),
        ("<iframe", "an <iframe> tag"),
        ("javascript:", "a javascript: link"),
    ] {
        if lower.contains(needle) {
            return Some(format!("holds {what}"));
        }
    }
    lower
        .split('<')
        .skip(1)
        .filter_map(|tag| tag.split('>').next())
        .any(has_event_handler)
        .then(|| "holds an HTML event handler (on...=)".to_string())
}

fn is_forbidden_char(c: char) -> bool {
    (c.is_control() && !matches!(c, '\n' | '\r' | '\t'))
        || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// `<img src=x onerror=...>`: an attribute named on... given a value.
fn has_event_handler(tag: &str) -> bool {
    tag.split(|c: char| c.is_whitespace() || c == '/').skip(1).any(|attr| {
        let name = attr.split('=').next().unwrap_or("");
        attr.contains('=') && name.len() > 2 && name.starts_with("on") && name.chars().all(|c| c.is_ascii_alphabetic())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field_of(r: Result<Card, CardError>) -> String {
        match r {
            Err(CardError::Field { field, .. }) => field,
            other => panic!("expected a field error, got {other:?}"),
        }
    }

    #[test]
    fn v2_and_v3_are_told_apart_and_nulls_are_absent() {
        let v2 = br#"{"spec":"chara_card_v2","spec_version":"2.0","data":{"name":"Ada","description":"d","character_book":null}}"#;
        let card = Card::from_json(v2).unwrap();
        assert_eq!((card.spec, card.data.name.as_str()), (Spec::V2, "Ada"));
        let v3 = br#"{"spec":"chara_card_v3","spec_version":"3.0","data":{"name":"Ada","assets":[{"type":"icon","uri":"ccdefault:","name":"main","ext":"png"}]}}"#;
        let card = Card::from_json(v3).unwrap();
        assert_eq!(card.spec, Spec::V3);
        assert_eq!(card.data.assets.unwrap()[0].kind, "icon");
        assert_eq!(
            Card::from_json(br#"{"name":"Old","first_mes":"hi"}"#).unwrap().spec,
            Spec::V1
        );
    }

    #[test]
    fn every_problem_names_its_field() {
        let bad_type = br#"{"spec":"chara_card_v2","data":{"name":"A","character_book":{"entries":[{"keys":"x"}]}}}"#;
        assert_eq!(
            field_of(Card::from_json(bad_type)),
            "data.character_book.entries[0].keys"
        );
        let script =
            br#"{"spec":"chara_card_v2","data":{"name":"A","alternate_greetings":["hi","<SCRIPT>alert(1)</script>"]}}"#;
        assert_eq!(field_of(Card::from_json(script)), "data.alternate_greetings[1]");
        let control = "{\"spec\":\"chara_card_v2\",\"data\":{\"name\":\"A\\u0007\"}}";
        assert_eq!(field_of(Card::from_json(control.as_bytes())), "data.name");
        let handler = br#"{"spec":"chara_card_v2","data":{"name":"A","description":"<img src=x onerror=alert(1)>"}}"#;
        assert_eq!(field_of(Card::from_json(handler)), "data.description");
        assert_eq!(
            field_of(Card::from_json(br#"{"spec":"chara_card_v9","data":{}}"#)),
            "spec"
        );
        assert!(matches!(Card::from_json(b"{not json"), Err(CardError::Json(_))));
    }

    #[test]
    fn plain_markup_and_words_like_onion_pass() {
        assert_eq!(
            hostile("She likes <b>bold</b> moves, onions = fine, and 1 < 2 > 0."),
            None
        );
        assert!(hostile("<a href='#' onclick='x()'>").is_some());
        assert!(hostile("right-to-left \u{202E} trick").is_some());
    }
}
