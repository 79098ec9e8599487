//! The persona's message while the model is still writing it: the answer
//! streams in as JSON text, and the content of its first `send_message`
//! action is read out of the part written so far, so the player sees the
//! words grow instead of a silent wait. Only a draft: the whole answer is
//! still parsed, validated and checked before anything is said.

/// The first `send_message`'s content in an answer cut anywhere, as far as
/// it is written; None until that content has begun.
pub fn draft_message(partial: &str) -> Option<String> {
    let action = unescaped(partial, "\"send_message\"")?;
    // The action's object: its content may come before or after the name.
    let object = partial[..action].rfind('{')?;
    let key = object + unescaped(&partial[object..], "\"content\"")? + "\"content\"".len();
    let rest = partial[key..].trim_start().strip_prefix(':')?.trim_start();
    let body = rest.strip_prefix('"')?;
    Some(read_string(body))
}

/// Where `needle` first occurs as JSON text, not inside a string value
/// (there its quotes would be escaped).
fn unescaped(text: &str, needle: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(at) = text[from..].find(needle) {
        let at = from + at;
        if !text[..at].ends_with('\\') {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// A JSON string's characters up to its closing quote or the end of what
/// was written, escapes decoded (one cut in half waits for the rest).
fn read_string(body: &str) -> String {
    let mut out = String::new();
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => break,
            '\\' => match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('r') => out.push('\r'),
                Some('u') => {
                    let hex: String = chars.by_ref().take(4).collect();
                    match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                        Some(decoded) if hex.len() == 4 => out.push(decoded),
                        _ => break,
                    }
                }
                Some(other) => out.push(other),
                None => break,
            },
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const ANSWER: &str = r#"{"thinking": "say \"send_message\" nicely", "actions": [{"action": "set_emotion", "content": "happy"}, {"action": "send_message", "content": "Nice \"trap\", Ann\u00e9!", "tone": "warm"}]}"#;

    #[test]
    fn the_draft_grows_with_the_answer_and_ends_as_the_message() {
        let mut seen = Vec::new();
        for end in (0..=ANSWER.len()).filter(|i| ANSWER.is_char_boundary(*i)) {
            if let Some(draft) = draft_message(&ANSWER[..end]) {
                seen.push(draft);
            }
        }
        assert_eq!(seen.last().map(String::as_str), Some("Nice \"trap\", Anné!"));
        assert!(seen.first().is_some_and(String::is_empty), "{seen:?}");
        for pair in seen.windows(2) {
            assert!(
                pair[1].starts_with(&pair[0]),
                "a draft never takes words back: {pair:?}"
            );
        }
    }

    #[test]
    fn no_draft_without_a_message_or_from_the_thinking() {
        assert_eq!(
            draft_message(r#"{"thinking": "x", "actions": [{"action": "stop"}]}"#),
            None
        );
        assert_eq!(draft_message(r#"{"thinking": "I will \"send_message\""#), None);
        let content_first = r#"{"actions": [{"content": "Hello", "action": "send_message""#;
        assert_eq!(draft_message(content_first).as_deref(), Some("Hello"));
    }
}
