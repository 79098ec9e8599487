//! Listening: what a chat line is for (its intent) and what it tells of the
//! player (facts, in the third person), without a language model. Rules
//! read the plain words clause by clause (`rules.rs`); where none is sure,
//! the line's embedding (the one its recall already ran) votes among
//! example lines embedded once at start (`intent.rs`). Facts are what a
//! player tells of their life and tastes that stays true (`facts.rs`).

mod facts;
mod intent;
mod rules;
#[cfg(test)]
mod tests;
mod words;

use serde::Serialize;

pub use facts::{ADVERBS, third_person};
pub use intent::{EXAMPLES, Intent, examples};
pub use rules::says_sorry;

/// A persona card's `[chat]` key for a line heard as an apology that only
/// says the player is tired ("long day, tired now"): nobody said sorry.
pub const TIREDNESS: &str = "tiredness";

/// Below this similarity to every example, and with no rule, a line is off topic.
const MIN_SIMILARITY: f32 = 0.35;
/// How much a weak rule leans the vote (its weight times this).
const RULE_LEAN: f32 = 0.5;

/// What was heard in one chat line.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Heard {
    pub intent: Intent,
    /// 0..=1: a rule's weight, or the similarity of the nearest examples.
    pub confidence: f32,
    /// Every other intent the line's words show, by rank.
    pub also: Vec<Intent>,
    /// What the player told of themselves, in the third person.
    pub facts: Vec<String>,
    /// "rules" or "meaning": what decided the intent.
    pub by: &'static str,
}

/// Where the examples' vectors are kept: beside the model that made them.
pub fn cache_path(models_dir: &std::path::Path) -> std::path::PathBuf {
    models_dir.join("intents.vec")
}

/// The listener a server shares: rules only until the examples' vectors
/// are ready (embedded in the background at start, or read from the cache).
pub type SharedListener = std::sync::Arc<std::sync::OnceLock<Listener>>;

/// The example lines' vectors, embedded once at start (`examples`).
#[derive(Debug, Clone, Default)]
pub struct Listener {
    examples: Vec<(Intent, Vec<f32>)>,
}

impl Listener {
    /// From the examples' vectors, in `examples()` order.
    pub fn new(vectors: Vec<Vec<f32>>) -> Listener {
        Listener {
            examples: examples().map(|(i, _)| i).zip(vectors).collect(),
        }
    }

    /// The example texts to embed, in order.
    pub fn example_texts() -> Vec<String> {
        examples().map(|(_, t)| t.to_string()).collect()
    }

    /// Reads `line`; `vector` is its embedding when the model could afford
    /// it (without, the rules alone decide). `player` names the facts.
    pub fn hear(&self, line: &str, vector: Option<&[f32]>, player: &str) -> Heard {
        let read: Vec<(rules::Clause, Vec<(Intent, f32)>)> = rules::clauses(line)
            .into_iter()
            .map(|c| {
                let r = rules::read(&c);
                (c, r)
            })
            .collect();
        let mut weights: Vec<(Intent, f32)> = Vec::new();
        for (intent, w) in read.iter().flat_map(|(_, r)| r.iter().copied()) {
            match weights.iter_mut().find(|(i, _)| *i == intent) {
                Some((_, best)) => *best = best.max(w),
                None => weights.push((intent, w)),
            }
        }
        let (intent, confidence, by) = self.decide(&weights, vector);
        let mut also: Vec<Intent> = weights
            .iter()
            .filter(|(i, w)| *i != intent && *w >= 0.5)
            .map(|(i, _)| *i)
            .collect();
        also.sort_by_key(|i| i.rank());
        // A clause tells a fact when it reads as telling and as nothing
        // else for sure: "sorry I had to step away" apologises.
        let telling = |r: &[(Intent, f32)]| {
            let tells = |i: &Intent| matches!(i, Intent::SelfDisclosure | Intent::Preference);
            r.iter().any(|(i, w)| tells(i) && *w >= 0.5) && !r.iter().any(|(i, w)| !tells(i) && *w >= rules::DECIDES)
        };
        let marked: Vec<facts::Marked> = read
            .into_iter()
            .map(|(c, r)| facts::Marked {
                tells: telling(&r) && !names_only(&c, player),
                subject: c.player_is_subject(),
                clause: c,
            })
            .collect();
        let facts = match intent {
            Intent::SelfDisclosure | Intent::Preference => facts::facts(&marked, player),
            _ if also
                .iter()
                .any(|i| matches!(i, Intent::SelfDisclosure | Intent::Preference)) =>
            {
                facts::facts(&marked, player)
            }
            _ => Vec::new(),
        };
        Heard {
            intent,
            confidence,
            also,
            facts,
            by,
        }
    }

    fn decide(&self, weights: &[(Intent, f32)], vector: Option<&[f32]>) -> (Intent, f32, &'static str) {
        let decided = weights
            .iter()
            .filter(|(_, w)| *w >= rules::DECIDES)
            .min_by_key(|(i, _)| i.rank());
        if let Some((intent, w)) = decided {
            return (*intent, *w, "rules");
        }
        let near = vector.map(|v| self.nearest(v)).unwrap_or_default();
        let mut best: Option<(Intent, f32, f32)> = None;
        for intent in Intent::ALL {
            let sim = near.iter().find(|(i, _)| *i == intent).map_or(0.0, |(_, s)| *s);
            let rule = weights.iter().find(|(i, _)| *i == intent).map_or(0.0, |(_, w)| *w);
            let score = sim + RULE_LEAN * rule;
            if best.is_none_or(|(_, s, _)| score > s) {
                best = Some((intent, score, sim));
            }
        }
        match best {
            Some((intent, score, sim)) if score >= MIN_SIMILARITY => {
                let by = if sim > 0.0 { "meaning" } else { "rules" };
                (intent, score.min(1.0), by)
            }
            _ => (Intent::OffTopic, 1.0 - best.map_or(0.0, |(_, s, _)| s), "meaning"),
        }
    }

    /// Per intent, the similarity of the line to its nearest example.
    fn nearest(&self, vector: &[f32]) -> Vec<(Intent, f32)> {
        let mut best: Vec<(Intent, f32)> = Vec::new();
        for (intent, example) in &self.examples {
            let sim = crate::memory::embed::cosine(vector, example);
            match best.iter_mut().find(|(i, _)| i == intent) {
                Some((_, s)) => *s = s.max(sim),
                None => best.push((*intent, sim)),
            }
        }
        best
    }
}

/// "I'm Ann": the player giving their name is no fact about them.
fn names_only(c: &rules::Clause, player: &str) -> bool {
    let rest = ["i'm", "im", "i am", "my name is", "call me"]
        .iter()
        .find_map(|s| c.padded.strip_prefix(&format!(" {s} ")));
    rest.is_some_and(|r| r.split_whitespace().count() <= 2 && r.contains(&player.to_lowercase()))
        || rest.is_some_and(|r| r.split_whitespace().count() == 1 && c.has("name"))
}
