//! A card's words into a persona's and back: the macros cards use
//! (`{{char}}`, `{{user}}`, `<BOT>`, `<USER>`) become the persona's
//! placeholders in lines (`{persona}`, `{player}`) or plain words in prose;
//! long texts are cut where a sentence ends.

/// A line the persona says (a greeting) is at most this long.
pub const MAX_LINE_CHARS: usize = 500;
pub const MAX_BIOGRAPHY_CHARS: usize = 16_000;
const MAX_EXAMPLE_CHARS: usize = 2_000;
const MAX_EXAMPLES: usize = 10;

const PERSONA_MARK: char = '\u{E000}';
const PLAYER_MARK: char = '\u{E001}';

/// Marks the persona's and the player's macros, and drops the other
/// `{{...}}` macros (random picks, dates: nothing a chess club fills in).
fn marked(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while !rest.is_empty() {
        let macro_at = ["{{char}}", "{{bot}}", "<bot>", "<char>", "{{user}}", "<user>"]
            .iter()
            .find(|m| rest.get(..m.len()).is_some_and(|head| head.eq_ignore_ascii_case(m)));
        if let Some(m) = macro_at {
            out.push(if m.contains("user") { PLAYER_MARK } else { PERSONA_MARK });
            rest = &rest[m.len()..];
        } else if rest.starts_with("{{")
            && let Some(end) = rest.find("}}")
        {
            rest = &rest[end + 2..];
        } else {
            let c = rest.chars().next().expect("not empty");
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

/// Prose (a biography, lore): the persona by name, the player as "the player".
pub fn plain(s: &str, name: &str) -> String {
    marked(s)
        .replace(PERSONA_MARK, name)
        .replace(PLAYER_MARK, "the player")
        .trim()
        .to_string()
}

/// A line the persona says: macros become placeholders; any other brace
/// becomes a parenthesis, since a persona's lines only know placeholders.
pub fn template(s: &str) -> String {
    marked(s)
        .replace('{', "(")
        .replace('}', ")")
        .replace(PERSONA_MARK, "{persona}")
        .replace(PLAYER_MARK, "{player}")
        .trim()
        .to_string()
}

/// A persona's line in a card's words.
pub fn card_macros(s: &str) -> String {
    s.replace("{persona}", "{{char}}").replace("{player}", "{{user}}")
}

/// `mes_example`'s dialogues, each opened by `<START>`.
pub fn examples(mes_example: &str) -> Vec<String> {
    const START: &str = "<start>";
    // ASCII lowering keeps every byte where it was.
    let lower = mes_example.to_ascii_lowercase();
    let mut chunks = Vec::new();
    let mut from = 0;
    for (at, _) in lower.match_indices(START) {
        chunks.push(&mes_example[from..at]);
        from = at + START.len();
    }
    chunks.push(&mes_example[from..]);
    chunks
        .into_iter()
        .map(|chunk| clip(&template(chunk), MAX_EXAMPLE_CHARS).0)
        .filter(|t| !t.is_empty())
        .take(MAX_EXAMPLES)
        .collect()
}

/// The examples as one `mes_example`.
pub fn mes_example(examples: &[String]) -> String {
    examples
        .iter()
        .map(|e| format!("<START>\n{}\n", card_macros(e)))
        .collect()
}

/// At most `max` characters, cut after the last sentence that fits (or at
/// a space, with "…"); and whether it was cut.
pub fn clip(s: &str, max: usize) -> (String, bool) {
    if s.chars().count() <= max {
        return (s.to_string(), false);
    }
    let head: String = s.chars().take(max - 1).collect();
    let sentence_end = head
        .char_indices()
        .filter(|(i, c)| matches!(c, '.' | '!' | '?' | '…' | '\n') && *i >= head.len() / 3)
        .map(|(i, c)| i + c.len_utf8())
        .next_back();
    let cut = match sentence_end {
        Some(end) => head[..end].trim_end().to_string(),
        None => {
            let end = head.rfind(char::is_whitespace).unwrap_or(head.len());
            format!("{}…", head[..end].trim_end())
        }
    };
    (cut, true)
}

/// A long text as pieces of at most `max` characters: paragraph by
/// paragraph, sentences packed together, a sentence too long cut.
pub fn pieces(s: &str, max: usize) -> Vec<String> {
    let mut out = Vec::new();
    for paragraph in s.split('\n').map(str::trim).filter(|p| !p.is_empty()) {
        let mut current = String::new();
        for sentence in sentences(paragraph) {
            let joined = if current.is_empty() {
                sentence.to_string()
            } else {
                format!("{current} {sentence}")
            };
            if joined.chars().count() <= max {
                current = joined;
                continue;
            }
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
            let mut rest = sentence.to_string();
            while rest.chars().count() > max {
                let (head, _) = clip(&rest, max);
                let taken = head.trim_end_matches('…').chars().count();
                rest = rest.chars().skip(taken).collect::<String>().trim().to_string();
                out.push(head);
            }
            current = rest;
        }
        if !current.is_empty() {
            out.push(current);
        }
    }
    out
}

fn sentences(paragraph: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes: Vec<(usize, char)> = paragraph.char_indices().collect();
    for (k, (i, c)) in bytes.iter().enumerate() {
        let next_is_space = bytes.get(k + 1).is_none_or(|(_, n)| n.is_whitespace());
        if matches!(c, '.' | '!' | '?') && next_is_space {
            let end = i + c.len_utf8();
            out.push(paragraph[start..end].trim());
            start = end;
        }
    }
    if start < paragraph.len() && !paragraph[start..].trim().is_empty() {
        out.push(paragraph[start..].trim());
    }
    out
}

/// A lorebook entry's text without V3 decorators (`@@depth 4` lines).
pub fn without_decorators(content: &str) -> String {
    content
        .lines()
        .filter(|l| !l.trim_start().starts_with("@@"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn macros_become_placeholders_in_lines_and_words_in_prose() {
        let s = "*waves* Hi {{user}}, I'm {{Char}}! <USER> meets <bot>. {{random:a,b}} {weird}";
        assert_eq!(
            template(s),
            "*waves* Hi {player}, I'm {persona}! {player} meets {persona}.  (weird)"
        );
        assert_eq!(plain("{{char}} beat {{user}}.", "Ada"), "Ada beat the player.");
        assert_eq!(
            template(&card_macros("Hi {player}, I'm {persona}.")),
            "Hi {player}, I'm {persona}."
        );
    }

    #[test]
    fn examples_split_on_start_and_come_back_the_same() {
        let mes = "<START>\n{{user}}: hi\n{{char}}: hello\n<START>\n{{char}}: Check!";
        let ex = examples(mes);
        assert_eq!(ex, vec!["{player}: hi\n{persona}: hello", "{persona}: Check!"]);
        assert_eq!(examples(&mes_example(&ex)), ex);
    }

    #[test]
    fn long_texts_are_cut_at_sentences() {
        let long = format!("{} The end is here.", "Word. ".repeat(100));
        let (cut, was) = clip(&long, 100);
        assert!(was && cut.ends_with('.') && cut.chars().count() <= 100, "{cut}");
        let p = pieces(&long, 100);
        assert!(p.iter().all(|x| x.chars().count() <= 100));
        assert_eq!(p.join(" ").split_whitespace().count(), long.split_whitespace().count());
        let no_stop = "word ".repeat(50);
        let (cut, _) = clip(&no_stop, 40);
        assert!(cut.ends_with('…') && cut.chars().count() <= 40, "{cut}");
    }

    #[test]
    fn decorators_are_dropped() {
        assert_eq!(
            without_decorators("@@depth 4\n@@@fallback\nThe tower is old."),
            "The tower is old."
        );
    }
}
