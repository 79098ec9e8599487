//! The corpus the relevance model is fitted on (`corpus/recall/`): invented
//! players, each with memories in many writers' words and chat lines
//! labelled with the memories each brings to mind; read into the pairs'
//! features through the very parts a live line goes through (the
//! embedding, the listener's reading of what the line is about, the
//! memory readers' tags).

use serde::Deserialize;

use super::features::{Candidate, Line, features};
use crate::embed::Embedder;
use crate::learn::{LearnError, PairSums, Translation};
use crate::listen::Listener;
use crate::memory::model::CreatedBy;
use crate::memory::reading::Readers;
use crate::memory::{Memory, MemoryType, lexical, tagging};

/// The shipped corpus, by name and text.
pub const FILES: [(&str, &str); 4] = [
    (
        "corpus/recall/chat_recall_a.jsonl",
        include_str!("../../../corpus/recall/chat_recall_a.jsonl"),
    ),
    (
        "corpus/recall/chat_recall_b.jsonl",
        include_str!("../../../corpus/recall/chat_recall_b.jsonl"),
    ),
    (
        "corpus/recall/chat_recall_c.jsonl",
        include_str!("../../../corpus/recall/chat_recall_c.jsonl"),
    ),
    (
        "corpus/recall/chat_recall_d.jsonl",
        include_str!("../../../corpus/recall/chat_recall_d.jsonl"),
    ),
];

/// One invented player.
#[derive(Debug, Clone, Deserialize)]
pub struct Player {
    pub player: String,
    pub memories: Vec<CorpusMemory>,
    pub lines: Vec<CorpusLine>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct CorpusMemory {
    pub key: String,
    #[serde(rename = "type")]
    pub memory_type: String,
    pub content: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct CorpusLine {
    pub text: String,
    /// The keys of the memories the line is about.
    pub relevant: Vec<String>,
}

/// One line's pairs: each of the player's memories' features, and whether
/// it is one the line is about.
#[derive(Debug, Clone)]
pub struct LinePairs {
    pub features: Vec<Vec<f32>>,
    pub relevant: Vec<bool>,
}

/// The players of `files` (name, text), one JSON object a line; a line
/// that does not read, an unknown memory type or a label naming no memory
/// names its file and line.
pub fn players(files: &[(&str, &str)]) -> Result<Vec<Player>, LearnError> {
    crate::learn::read_lines(files, |player: Player| check(&player).map(|()| player))
}

fn check(player: &Player) -> Result<(), String> {
    for m in &player.memories {
        m.memory_type.parse::<MemoryType>().map_err(|e| e.to_string())?;
    }
    let labels = player.lines.iter().flat_map(|l| &l.relevant);
    match labels
        .into_iter()
        .find(|k| !player.memories.iter().any(|m| &m.key == *k))
    {
        Some(key) => Err(format!("{}: no memory {key}", player.player)),
        None => Ok(()),
    }
}

/// A player with their memories tagged and embedded and their lines
/// embedded, as a live line and the store would have them.
pub struct Embedded {
    player: Player,
    memories: Vec<(Memory, Vec<f32>)>,
    lines: Vec<Vec<f32>>,
}

/// The players' texts run through the embedding once, their memories
/// tagged by `readers`.
pub async fn embedded(
    embedder: &Embedder,
    readers: Option<&Readers>,
    players: Vec<Player>,
) -> Result<Vec<Embedded>, LearnError> {
    let mut out = Vec::with_capacity(players.len());
    for player in players {
        let memories = tagged(embedder, readers, &player).await?;
        let texts: Vec<String> = player.lines.iter().map(|l| l.text.clone()).collect();
        let mut lines = Vec::with_capacity(texts.len());
        for batch in texts.chunks(32) {
            lines.extend(embedder.embed(batch.to_vec()).await?);
        }
        out.push(Embedded {
            player,
            memories,
            lines,
        });
    }
    Ok(out)
}

/// What the translation of lines toward their memories is fitted on: each
/// line about some memory, and the mean of those memories' vectors.
pub fn pair_sums(players: &[Embedded]) -> PairSums {
    let mut sums = PairSums::new(crate::embed::DIMENSIONS);
    for p in players {
        for (line, vector) in p.player.lines.iter().zip(&p.lines) {
            let meant: Vec<&Vec<f32>> = p
                .player
                .memories
                .iter()
                .zip(&p.memories)
                .filter(|(m, _)| line.relevant.contains(&m.key))
                .map(|(_, (_, v))| v)
                .collect();
            if meant.is_empty() {
                continue;
            }
            let mut mean = vec![0.0f32; vector.len()];
            meant
                .iter()
                .for_each(|v| mean.iter_mut().zip(v.iter()).for_each(|(s, x)| *s += x));
            let norm = mean.iter().map(|x| x * x).sum::<f32>().sqrt().max(f32::EPSILON);
            mean.iter_mut().for_each(|x| *x /= norm);
            sums.add(vector, &mean);
        }
    }
    sums
}

/// Every line of every player as pairs with that player's memories, read
/// as a live line is: heard by `listener`, its nearness to each memory
/// measured with `translation` (`super::nearness`).
pub fn examples(listener: &Listener, players: &[Embedded], translation: &Translation) -> Vec<LinePairs> {
    let mut out = Vec::new();
    for p in players {
        for (line, vector) in p.player.lines.iter().zip(&p.lines) {
            let heard = listener.hear(&line.text, Some(vector), &p.player.player);
            let words = lexical::query(&line.text);
            let carried = translation.apply(vector);
            let found: Vec<Candidate<'_>> = p
                .memories
                .iter()
                .map(|(m, v)| Candidate {
                    similarity: super::nearness(vector, &carried, v),
                    overlap: lexical::overlap(&words, &lexical::document(&m.content)),
                    tags: &m.tags,
                    memory_type: m.memory_type,
                })
                .collect();
            let intents = heard.intents();
            let read = Line {
                about: &heard.about,
                topics: &heard.topics,
                intents: &intents,
                words: line.text.split_whitespace().count(),
            };
            out.push(LinePairs {
                features: (0..found.len()).map(|i| features(&read, &found, i)).collect(),
                relevant: p
                    .player
                    .memories
                    .iter()
                    .map(|m| line.relevant.contains(&m.key))
                    .collect(),
            });
        }
    }
    out
}

/// The player's memories as the store would hold them: tagged by their
/// words, type and meaning; each with its embedding.
async fn tagged(
    embedder: &Embedder,
    readers: Option<&Readers>,
    player: &Player,
) -> Result<Vec<(Memory, Vec<f32>)>, LearnError> {
    let texts = player.memories.iter().map(|m| m.content.clone()).collect();
    let vectors = embedder.embed(texts).await?;
    let mut out = Vec::with_capacity(vectors.len());
    for (m, v) in player.memories.iter().zip(vectors) {
        let kind = m.memory_type.parse().unwrap_or(MemoryType::PlayerObservation);
        let mut memory = Memory::new("corpus", kind, &m.content, CreatedBy::MainAgent);
        tagging::tag(readers, &mut memory, &v);
        out.push((memory, v));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_corpus_reads_and_every_label_names_a_memory() {
        let players = players(&FILES).expect("the shipped corpus reads");
        assert!(players.len() >= 50, "{}", players.len());
        let lines: usize = players.iter().map(|p| p.lines.len()).sum();
        assert!(lines >= 1000, "{lines}");
        let about_nothing = players.iter().flat_map(|p| &p.lines).filter(|l| l.relevant.is_empty());
        assert!(about_nothing.count() >= 150, "lines about no memory are kept");
    }

    #[test]
    fn a_label_naming_no_memory_names_its_line() {
        let text = r#"{"player":"Ann","memories":[{"key":"tea","type":"personal_note","content":"Ann drinks tea"}],"lines":[{"text":"coffee?","relevant":["cofee"]}]}"#;
        let err = players(&[("x.jsonl", text)]).unwrap_err().to_string();
        assert!(err.contains("x.jsonl:1") && err.contains("cofee"), "{err}");
    }
}
