//! A persona's message cut to Lichess's chat: lines of at most `max`
//! characters, split after a sentence where one fits, else between words,
//! a word longer than a line cut where it must.

pub fn split(text: &str, max: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for sentence in sentences(text) {
        if fits(&line, sentence, max) {
            push_words(&mut line, sentence);
            continue;
        }
        if !line.is_empty() {
            lines.push(std::mem::take(&mut line));
        }
        for word in sentence.split_whitespace() {
            if !fits(&line, word, max) && !line.is_empty() {
                lines.push(std::mem::take(&mut line));
            }
            let mut word = word;
            while word.chars().count() > max {
                let cut = word.char_indices().nth(max).map_or(word.len(), |(i, _)| i);
                lines.push(word[..cut].to_string());
                word = &word[cut..];
            }
            push_words(&mut line, word);
        }
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// Sentences with their ending punctuation, split where ". ", "! " or
/// "? " ends one.
fn sentences(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text.trim();
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        // "3. Bc4" is a move number, not a sentence's end.
        let chars: Vec<(usize, char)> = rest.char_indices().collect();
        let end = chars
            .windows(3)
            .find(|w| {
                matches!(w[1].1, '.' | '!' | '?')
                    && w[2].1.is_whitespace()
                    && !(w[1].1 == '.' && w[0].1.is_ascii_digit())
            })
            .map_or(rest.len(), |w| w[1].0 + w[1].1.len_utf8());
        let (sentence, tail) = rest.split_at(end);
        rest = tail.trim_start();
        Some(sentence.trim())
    })
}

fn fits(line: &str, more: &str, max: usize) -> bool {
    let gap = usize::from(!line.is_empty());
    line.chars().count() + gap + more.split_whitespace().collect::<Vec<_>>().join(" ").chars().count() <= max
}

/// Appends `words` (whitespace made single spaces) after a space.
fn push_words(line: &mut String, words: &str) {
    for word in words.split_whitespace() {
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
}

#[cfg(test)]
mod tests {
    use super::split;

    #[test]
    fn short_text_is_one_line() {
        assert_eq!(split("  Ha!  Good   move. ", 140), vec!["Ha! Good move."]);
        assert!(split("   ", 140).is_empty());
    }

    #[test]
    fn long_text_splits_after_sentences_then_words() {
        let text = "Ann! You came back for more? I remember you: you play the Caro-Kann and you always castle long. This time, no mercy.";
        let lines = split(text, 60);
        assert_eq!(
            lines,
            vec![
                "Ann! You came back for more?",
                "I remember you: you play the Caro-Kann and you always castle",
                "long. This time, no mercy.",
            ]
        );
        assert!(lines.iter().all(|l| l.chars().count() <= 60));
        assert_eq!(lines.join(" "), text);
    }

    #[test]
    fn a_move_number_does_not_end_a_sentence() {
        let text = "The turning point: 3. Bc4 by the player. Three things learned.";
        assert_eq!(
            split(text, 45),
            vec!["The turning point: 3. Bc4 by the player.", "Three things learned."]
        );
    }

    #[test]
    fn a_word_longer_than_a_line_is_cut() {
        let lines = split("aaaaaaaaaaaaaaaaaaaaaaaaa", 10);
        assert_eq!(lines, vec!["aaaaaaaaaa", "aaaaaaaaaa", "aaaaa"]);
        let lines = split("é😀é😀é😀 ok", 4);
        assert_eq!(lines, vec!["é😀é😀", "é😀", "ok"]);
    }
}
