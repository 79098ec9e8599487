//! A name a chat line shares with a memory: "Ada finally slept four hours"
//! and "Nadia's daughter Ada was born in October 2026". A name is a word a
//! memory capitalises inside a sentence (a person, a pet, a town, an
//! opening); one that most of the candidates carry (the player's own) says
//! nothing of which memory the line is about.

use std::collections::HashMap;

use crate::memory::Recalled;

/// The words `text` capitalises inside its sentences.
fn names_in(text: &str) -> Vec<&str> {
    let mut names = Vec::new();
    let mut sentence_start = true;
    for token in text.split_whitespace() {
        let word = token.trim_matches(|c: char| !c.is_alphanumeric());
        let word = word
            .split('\'')
            .next()
            .unwrap_or(word)
            .split('’')
            .next()
            .unwrap_or(word);
        let capital = word.chars().next().is_some_and(char::is_uppercase);
        let lower_after = word.chars().skip(1).all(|c| c.is_lowercase());
        if !sentence_start && capital && lower_after && word.chars().count() >= 3 && !common(word) {
            names.push(word);
        }
        sentence_start = token.ends_with(['.', '!', '?', ':']) || token.starts_with('"');
    }
    names
}

/// Capitalised words every player's memories share: the colours, and the
/// calendar's months and days (chrono's names).
fn common(word: &str) -> bool {
    use std::str::FromStr;
    matches!(word, "White" | "Black")
        || chrono::Month::from_str(word).is_ok()
        || chrono::Weekday::from_str(word).is_ok()
}

/// The names that tell the candidates apart: those fewer than half of
/// them carry (with two candidates, any).
pub fn telling(found: &[Recalled]) -> Vec<String> {
    let mut count: HashMap<&str, usize> = HashMap::new();
    for r in found {
        let mut names = names_in(&r.memory.content);
        names.sort_unstable();
        names.dedup();
        for name in names {
            *count.entry(name).or_default() += 1;
        }
    }
    count
        .into_iter()
        .filter(|(_, n)| *n * 2 <= found.len().max(2))
        .map(|(name, _)| name.to_string())
        .collect()
}

/// The telling name both the line and the memory give, if any.
pub fn shared(line: &str, memory: &str, telling: &[String]) -> Option<String> {
    let in_line = |name: &str| line.split(|c: char| !c.is_alphanumeric()).any(|w| w == name);
    names_in(memory)
        .into_iter()
        .find(|name| telling.iter().any(|t| t == name) && in_line(name))
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_capitalised_words_inside_a_sentence() {
        assert_eq!(names_in("Nadia's daughter Ada was born in October 2026."), vec!["Ada"]);
        assert_eq!(
            names_in("Owns a bakery. Her day starts at 4."),
            Vec::<&str>::new(),
            "'Her' begins a sentence"
        );
        assert_eq!(names_in("plays the London as White on Monday"), vec!["London"]);
    }

    #[test]
    fn a_line_and_a_memory_share_a_name_only_as_a_whole_word() {
        let telling = vec!["Ada".to_string()];
        let memory = "Nadia's daughter Ada was born in October 2026.";
        assert_eq!(
            shared("Ada finally slept four hours", memory, &telling),
            Some("Ada".into())
        );
        assert_eq!(shared("Adam is here", memory, &telling), None);
        assert_eq!(shared("ada slept", memory, &telling), None, "a name keeps its capital");
        assert_eq!(shared("Nadia here", memory, &telling), None, "not a telling name");
    }
}
