//! Finding the JSON in a model's prose: the first balanced `{...}` object,
//! braces inside strings ignored, for backends without structured output.

/// The first complete JSON object in `text` that parses, if any.
pub fn first_json_object(text: &str) -> Option<serde_json::Value> {
    let mut from = 0;
    while let Some(offset) = text[from..].find('{') {
        let start = from + offset;
        if let Some(end) = balanced_end(&text[start..])
            && let Ok(v) = serde_json::from_str(&text[start..start + end])
        {
            return Some(v);
        }
        from = start + 1;
    }
    None
}

/// Length of the balanced object starting at `s[0] == '{'`.
fn balanced_end(s: &str) -> Option<usize> {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (i, c) in s.char_indices() {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' => depth += 1,
            '}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_object_in_prose_with_braces_in_strings() {
        let text =
            r#"Sure! Here you go: {"thinking": "a {tricky} one", "actions": [{"action": "stop"}]} Hope it helps {"#;
        let v = first_json_object(text).unwrap();
        assert_eq!(v["thinking"], "a {tricky} one");
        assert_eq!(v["actions"][0]["action"], "stop");
    }

    #[test]
    fn skips_broken_objects_and_gives_up_on_truncated_ones() {
        assert_eq!(first_json_object(r#"{not json} then {"a": 1}"#).unwrap()["a"], 1);
        assert!(first_json_object(r#"{"actions": [{"action": "send_mess"#).is_none());
        assert!(first_json_object("no json here").is_none());
    }
}
