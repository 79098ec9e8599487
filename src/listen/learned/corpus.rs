//! The labelled chat lines the listener learns from (`corpus/listen/`),
//! compiled into the binary so a server can train its listener anywhere.
//! One JSON object a line: `text`, `intents` (main first), `remember`,
//! `facts` (when remember, in the third person with `{p}`), `voice`.

use serde::Deserialize;

use crate::learn::{Labelled, LearnError};
use crate::listen::Intent;

/// The corpus files, in a fixed order (their order is part of the model's key).
const FILES: &[(&str, &str)] = &[
    (
        "chat_lines.jsonl",
        include_str!("../../../corpus/listen/chat_lines.jsonl"),
    ),
    (
        "mixed_and_facts.jsonl",
        include_str!("../../../corpus/listen/mixed_and_facts.jsonl"),
    ),
    (
        "phrasings.jsonl",
        include_str!("../../../corpus/listen/phrasings.jsonl"),
    ),
    (
        "framed_and_jokes.jsonl",
        include_str!("../../../corpus/listen/framed_and_jokes.jsonl"),
    ),
    ("my_facts.jsonl", include_str!("../../../corpus/listen/my_facts.jsonl")),
    (
        "told_in_passing.jsonl",
        include_str!("../../../corpus/listen/told_in_passing.jsonl"),
    ),
    (
        "named_like_pieces.jsonl",
        include_str!("../../../corpus/listen/named_like_pieces.jsonl"),
    ),
    ("dislikes.jsonl", include_str!("../../../corpus/listen/dislikes.jsonl")),
    (
        "moments_and_lasting.jsonl",
        include_str!("../../../corpus/listen/moments_and_lasting.jsonl"),
    ),
];

#[derive(Deserialize)]
struct Raw {
    text: String,
    intents: Vec<String>,
    remember: bool,
    #[serde(default)]
    facts: Vec<String>,
}

/// Every labelled line, as the listener learns it: its main intent the
/// class; each intent shown, then remember, the flags. An unreadable line
/// names its file and line.
pub fn corpus() -> Result<Vec<Labelled>, LearnError> {
    crate::learn::read_lines(FILES, |raw: Raw| {
        let intents = raw
            .intents
            .iter()
            .map(|i| Intent::parse(i).ok_or(format!("unknown intent {i}")))
            .collect::<Result<Vec<_>, _>>()?;
        if intents.is_empty() || raw.text.trim().is_empty() {
            return Err("a line needs its text and at least one intent".into());
        }
        if raw.remember == raw.facts.is_empty() {
            return Err("facts are given exactly when remember is true".into());
        }
        let mut flags: Vec<bool> = Intent::ALL.iter().map(|i| intents.contains(i)).collect();
        flags.push(raw.remember);
        Ok(Labelled {
            text: raw.text,
            class: index(intents[0]),
            flags,
        })
    })
}

fn index(intent: Intent) -> usize {
    Intent::ALL
        .iter()
        .position(|i| *i == intent)
        .expect("every intent is in ALL")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_corpus_reads_and_covers_every_intent_in_many_lines() {
        let lines = corpus().expect("the shipped corpus reads");
        assert!(lines.len() >= 1500, "{} lines", lines.len());
        for intent in Intent::ALL {
            let main = lines.iter().filter(|l| l.class == index(intent)).count();
            assert!(main >= 40, "{intent}: {main} lines");
        }
        let mixed = lines
            .iter()
            .filter(|l| l.flags[..Intent::ALL.len()].iter().filter(|f| **f).count() > 1)
            .count();
        assert!(mixed >= 300, "{mixed} mixed lines");
        let mut texts: Vec<&str> = lines.iter().map(|l| l.text.as_str()).collect();
        texts.sort_unstable();
        texts.dedup();
        assert_eq!(texts.len(), lines.len(), "no line twice");
    }
}
