//! Replacing forgotten words inside stored text and JSON, without touching
//! anything around them: other words (a one-letter memory "e" must not eat
//! the e of "the"), or JSON syntax (a memory "0" must not turn `"moves":0`
//! into garbage).

use serde_json::Value;

/// What forgotten words are replaced with.
pub const ERASED: &str = "[forgotten]";

/// Every form the forgotten texts may be stored in, longest first so that a
/// text is replaced before any shorter one inside it.
#[derive(Debug, Clone, Default)]
pub struct Forms(Vec<String>);

impl Forms {
    /// The texts as given, and as they read escaped inside a JSON string
    /// (a model's raw answer, or a prompt quoting JSON).
    pub fn new<'a>(texts: impl IntoIterator<Item = &'a str>) -> Forms {
        let mut forms: Vec<String> = Vec::new();
        for text in texts.into_iter().map(str::trim).filter(|t| !t.is_empty()) {
            let escaped = serde_json::to_string(text).unwrap_or_default();
            for form in [text.to_string(), escaped.trim_matches('"').to_string()] {
                if !forms.contains(&form) {
                    forms.push(form);
                }
            }
        }
        forms.sort_by_key(|f| std::cmp::Reverse(f.len()));
        Forms(forms)
    }

    /// Forms another node already made (`iter`), kept as they are.
    pub fn exact(mut forms: Vec<String>) -> Forms {
        forms.sort_by_key(|f| std::cmp::Reverse(f.len()));
        Forms(forms)
    }

    pub fn iter(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(String::as_str)
    }

    /// `s` with every form replaced, or None if none stood in it.
    pub fn scrub_text(&self, s: &str) -> Option<String> {
        let mut out: Option<String> = None;
        for form in &self.0 {
            for replace in [replace_bounded, replace_clipped] {
                if let Some(next) = replace(out.as_deref().unwrap_or(s), form) {
                    out = Some(next);
                }
            }
        }
        out
    }

    /// Scrubs every string inside `doc` (object keys stay: they are ours);
    /// true if anything changed.
    pub fn scrub_json(&self, doc: &mut Value) -> bool {
        match doc {
            Value::String(s) => match self.scrub_text(s) {
                Some(clean) => {
                    *s = clean;
                    true
                }
                None => false,
            },
            Value::Array(items) => items.iter_mut().fold(false, |c, v| self.scrub_json(v) | c),
            Value::Object(map) => map.values_mut().fold(false, |c, v| self.scrub_json(v) | c),
            _ => false,
        }
    }

    /// A JSON document's text scrubbed; text that is not JSON is scrubbed
    /// as text.
    pub fn scrub_json_text(&self, text: &str) -> Option<String> {
        match serde_json::from_str::<Value>(text) {
            Ok(mut doc) => self.scrub_json(&mut doc).then(|| doc.to_string()),
            Err(_) => self.scrub_text(text),
        }
    }
}

/// `s` with each occurrence of `text` that stands on its own replaced: where
/// `text` begins (ends) with a letter or digit, the character before (after)
/// it must not be one.
fn replace_bounded(s: &str, text: &str) -> Option<String> {
    if text.is_empty() || !s.contains(text) {
        return None;
    }
    let wordy = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
    let (opens_word, closes_word) = (wordy(text.chars().next()), wordy(text.chars().next_back()));
    let mut out = String::with_capacity(s.len());
    let mut copied = 0;
    for (at, _) in s.match_indices(text) {
        let end = at + text.len();
        let inside_a_word =
            (opens_word && wordy(s[..at].chars().next_back())) || (closes_word && wordy(s[end..].chars().next()));
        if at < copied || inside_a_word {
            continue;
        }
        out.push_str(&s[copied..at]);
        out.push_str(ERASED);
        copied = end;
    }
    if copied == 0 {
        return None;
    }
    out.push_str(&s[copied..]);
    Some(out)
}

/// A model's thread keeps the first characters of each turn and a "…"
/// (`memory::clipped`): a form cut there stands before the "…" as its
/// beginning only. That beginning is replaced when it is long enough to be
/// the form's and not any text's.
fn replace_clipped(s: &str, form: &str) -> Option<String> {
    const CLIP: char = '…';
    let (shortest, _) = form.char_indices().nth(CLIPPED_MIN_CHARS)?;
    let opens_word = form.chars().next().is_some_and(char::is_alphanumeric);
    let mut out = s.to_string();
    // From the last "…" back, so each replacement leaves earlier ones in place.
    let cuts: Vec<usize> = s.match_indices(CLIP).map(|(at, _)| at).collect();
    for cut in cuts.into_iter().rev() {
        let before = &out[..cut];
        let Some(start) = (shortest..form.len())
            .rev()
            .filter(|&end| form.is_char_boundary(end))
            .find(|&end| before.ends_with(&form[..end]))
            .map(|end| cut - end)
        else {
            continue;
        };
        if opens_word && before[..start].chars().next_back().is_some_and(char::is_alphanumeric) {
            continue;
        }
        out.replace_range(start..cut, ERASED);
    }
    (out != s).then_some(out)
}

/// The shortest beginning of a form taken for the form, cut by a clip.
const CLIPPED_MIN_CHARS: usize = 12;

/// Erasure in a reflection's stored body (`reflection::Reflection` as
/// JSON): drops what was learned from `memory_id` and passes its free-text
/// fields (`summary`, each `learned[].content`) through `scrub` (None:
/// nothing of it to forget); typed fields are left whole, so it still reads
/// back (`reflection`'s tests hold it to that). True if anything changed.
pub fn forget_in_reflection(
    body: &mut serde_json::Value,
    memory_id: &str,
    scrub: impl Fn(&str) -> Option<String>,
) -> bool {
    use serde_json::Value;
    let mut changed = false;
    if let Some(Value::Array(learned)) = body.get_mut("learned") {
        let before = learned.len();
        learned.retain(|l| l.get("memory_id").and_then(Value::as_str) != Some(memory_id));
        changed = learned.len() != before;
        for l in learned.iter_mut() {
            changed |= scrub_field(l, "content", &scrub);
        }
    }
    changed | scrub_field(body, "summary", &scrub)
}

fn scrub_field(object: &mut serde_json::Value, field: &str, scrub: &impl Fn(&str) -> Option<String>) -> bool {
    let Some(text) = object.get(field).and_then(serde_json::Value::as_str) else {
        return false;
    };
    let Some(clean) = scrub(text) else { return false };
    object[field] = serde_json::Value::String(clean);
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scrubbing_touches_strings_not_json_syntax() {
        let forms = Forms::new(["0"]);
        let mut doc = serde_json::json!({ "moves": 0, "learned": [{ "content": "born in 1990" }], "n": "0" });
        assert!(forms.scrub_json(&mut doc));
        assert_eq!(doc["moves"], 0);
        assert_eq!(
            doc["learned"][0]["content"], "born in 1990",
            "0 inside a number-word stays"
        );
        assert_eq!(doc["n"], "[forgotten]");
        let forms = Forms::new(["likes \"quotes\""]);
        let mut doc = serde_json::json!(["Pat likes \"quotes\".", 1]);
        assert!(forms.scrub_json(&mut doc));
        assert_eq!(doc, serde_json::json!(["Pat [forgotten].", 1]));
    }

    #[test]
    fn a_short_text_is_forgotten_as_a_word_not_inside_words() {
        let forms = Forms::new(["e"]);
        assert_eq!(
            forms.scrub_text("the e-file: e"),
            Some("the [forgotten]-file: [forgotten]".into())
        );
        assert_eq!(forms.scrub_text("the knight on e4"), None);
        let forms = Forms::new(["said \"hi\""]);
        assert_eq!(forms.scrub_text("she said \"hi\"!"), Some("she [forgotten]!".into()));
    }

    #[test]
    fn escaped_copies_inside_json_text_are_found() {
        let forms = Forms::new(["my \"Sicilian\" love"]);
        let raw = r#"{"content":"my \"Sicilian\" love","n":1}"#;
        assert_eq!(forms.scrub_text(raw), Some(r#"{"content":"[forgotten]","n":1}"#.into()));
        assert_eq!(
            forms.scrub_json_text(raw),
            Some(r#"{"content":"[forgotten]","n":1}"#.into())
        );
    }

    #[test]
    fn a_text_cut_by_a_threads_clip_is_found_by_its_beginning() {
        let forms = Forms::new(["Ann keeps bees on the roof of her flat in Porto"]);
        let line = "said: Welcome back! My ledger says Ann keeps bees on the roof of…";
        assert_eq!(
            forms.scrub_text(line),
            Some("said: Welcome back! My ledger says [forgotten]…".into())
        );
        assert_eq!(
            forms.scrub_text("said: Ann keeps…"),
            None,
            "too short to be the memory's"
        );
        assert_eq!(forms.scrub_text("said: nothing to do with it…"), None);
        let both = "Ann keeps bees on the roof of her flat in Porto. said: Ann keeps bees on…";
        assert_eq!(forms.scrub_text(both), Some("[forgotten]. said: [forgotten]…".into()));
        let turn = "said: So, Ann keeps bees on the roof…; noted: Ann keeps bees on the roof of her…";
        assert_eq!(
            forms.scrub_text(turn),
            Some("said: So, [forgotten]…; noted: [forgotten]…".into()),
            "every cut line of a turn"
        );
    }

    #[test]
    fn a_longer_text_goes_before_a_shorter_one_inside_it() {
        let forms = Forms::new(["London", "I play the London System"]);
        assert_eq!(
            forms.scrub_text("I play the London System."),
            Some("[forgotten].".into())
        );
    }
}
