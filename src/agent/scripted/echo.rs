//! A fact about the player said back to them, in the second person.

/// A fact about the player, said back to them: "Ann learned chess from
/// their dad." -> "you learned chess from your dad" (lower case: the line
/// capitalises it where it opens with it).
pub(super) fn echo(fact: &str, player: &str) -> String {
    // Kept in their own words ('Ann said: "my back is killing me."'): said
    // back as those words turned to them ("your back is killing you"), not
    // as 'you said: "..."', which no friend says back.
    if let Some(words) = quoted_words(fact, player) {
        let turned = words.split_whitespace().map(to_you).collect::<Vec<_>>().join(" ");
        return lower_first(&turned.replace("you was ", "you were "));
    }
    // A quoted fact ('Ann said: "long week."') loses its stop inside the
    // quote too, or the line that follows it reads `."."`.
    let fact = fact.trim_end_matches(['.', '!']);
    let (fact, closing) = match fact.strip_suffix('"') {
        Some(quoted) => (quoted.trim_end_matches(['.', '!']), "\""),
        None => (fact, ""),
    };
    let words: Vec<&str> = fact.split_whitespace().collect();
    let mut out: Vec<String> = Vec::with_capacity(words.len());
    let mut after_subject = false;
    for w in words {
        let (core, tail) = w.split_at(w.trim_end_matches(|c: char| !c.is_alphanumeric() && c != '\'').len());
        let word = if core == player {
            after_subject = true;
            out.push(format!("you{tail}"));
            continue;
        } else if core == format!("{player}'s") {
            format!("your{tail}")
        } else if after_subject && crate::listen::an_adverb(&core.to_lowercase()) {
            // "Ann always plays": the verb is still to come.
            out.push(w.to_string());
            continue;
        } else if after_subject {
            format!("{}{tail}", second_person_verb(core))
        } else {
            match core {
                "their" => format!("your{tail}"),
                "them" => format!("you{tail}"),
                "themselves" => format!("yourself{tail}"),
                "theirs" => format!("yours{tail}"),
                _ => w.to_string(),
            }
        };
        after_subject = false;
        out.push(word);
    }
    lower_first(&(out.join(" ") + closing))
}

/// The words inside a fact kept as the player said them, without the
/// stop they end on.
fn quoted_words<'a>(fact: &'a str, player: &str) -> Option<&'a str> {
    if !crate::listen::kept_as_said(fact, player) {
        return None;
    }
    let (open, close) = (fact.find('"')?, fact.rfind('"')?);
    let inner = fact.get(open + 1..close)?.trim().trim_end_matches(['.', '!', ',']);
    (!inner.is_empty()).then_some(inner)
}

/// The speaker's own word turned to the one spoken to: "my" -> "your",
/// "I'm" -> "you're", "me" -> "you".
fn to_you(word: &str) -> String {
    let (core, tail) = word.split_at(word.trim_end_matches(|c: char| !c.is_alphanumeric() && c != '\'').len());
    let turned = match core.to_lowercase().replace('\u{2019}', "'").as_str() {
        "i" | "me" => "you",
        "my" => "your",
        "mine" => "yours",
        "myself" => "yourself",
        "i'm" | "im" => "you're",
        "i've" | "ive" => "you've",
        "i'd" => "you'd",
        "i'll" => "you'll",
        "am" => "are",
        _ => return word.to_string(),
    };
    format!("{turned}{tail}")
}

fn lower_first(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map_or_else(String::new, |c| c.to_lowercase().chain(chars).collect())
}

/// "loves" -> "love", "is" -> "are": the verb after "you".
fn second_person_verb(verb: &str) -> String {
    let irregular = match verb {
        "is" => Some("are"),
        "was" => Some("were"),
        "has" => Some("have"),
        "does" => Some("do"),
        "doesn't" => Some("don't"),
        "hasn't" => Some("haven't"),
        "isn't" => Some("aren't"),
        "wasn't" => Some("weren't"),
        "goes" => Some("go"),
        _ => None,
    };
    if let Some(v) = irregular {
        return v.to_string();
    }
    let lower = verb.to_lowercase();
    let plain = |n: usize| verb[..verb.len() - n].to_string();
    if lower.ends_with("ies") && lower.len() > 4 {
        format!("{}y", plain(3))
    } else if ["ches", "shes", "xes", "sses", "zes", "oes"]
        .iter()
        .any(|e| lower.ends_with(e))
    {
        plain(2)
    } else if lower.ends_with('s') && !lower.ends_with("ss") && lower.len() > 2 {
        plain(1)
    } else {
        verb.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::echo;

    #[test]
    fn a_fact_is_said_back_to_the_player() {
        let cases = [
            ("Ann learned chess from their dad.", "you learned chess from your dad"),
            (
                "Ann always plays the London as white.",
                "you always play the London as white",
            ),
            ("Ann's wife teaches maths.", "your wife teaches maths"),
            ("Ann is a retired postman.", "you are a retired postman"),
            ("Ann studies medicine.", "you study medicine"),
            ("Ann literally works nights.", "you literally work nights"),
            ("Ann said: \"long week of marking.\"", "long week of marking"),
            (
                "Ann said: \"my back is killing me, I'm so stiff, I was up at 5!\"",
                "your back is killing you, you're so stiff, you were up at 5",
            ),
            (
                "Blitz is Ann's favourite time control.",
                "blitz is your favourite time control",
            ),
        ];
        for (fact, said) in cases {
            assert_eq!(echo(fact, "Ann"), said);
        }
    }
}
