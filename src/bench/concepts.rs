//! The concepts a memory is tagged with, scored against what another
//! writer labelled it with (`bench subjects`' set: each memory's
//! `concepts`, in that writer's own small vocabulary). Our finer tags are
//! folded into theirs (`THEIRS`), so "rook_endgame" counts as "endgame";
//! a concept with no counterpart of ours ("specific_move") is not scored.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use kibitz::memory::concepts;
use kibitz::memory::reading::Meaning;

/// Their concept, and the tags of ours that say it.
const THEIRS: &[(&str, &[&str])] = &[
    ("opening", &["opening", "gambit", "repertoire"]),
    (
        "endgame",
        &[
            "endgame",
            "rook_endgame",
            "pawn_endgame",
            "queen_endgame",
            "opposite_bishops",
            "minor_piece_endgame",
        ],
    ),
    ("time_trouble", &["thinking_time"]),
    // By the definitions: a mate is a tactic, a gambit gives a pawn.
    (
        "tactics",
        &["fork", "pin", "skewer", "discovered_attack", "back_rank", "mate"],
    ),
    ("sacrifice", &["sacrifice", "exchange_sacrifice", "gambit"]),
    ("blunder", &["blunder", "hanging_piece"]),
    ("draw", &["draw"]),
    ("resignation", &["resign"]),
    ("streak", &["streak"]),
    ("colour_white", &["as_white"]),
    ("colour_black", &["as_black"]),
];

/// Hits, tagged and labelled counts per concept of theirs.
#[derive(Default)]
pub struct Scores(BTreeMap<&'static str, [usize; 3]>);

impl Scores {
    /// Scores one memory: `labels` theirs, its tags ours.
    pub fn add(&mut self, read: &Meaning<'_>, text: &str, vector: &[f32], labels: &[String]) -> Vec<String> {
        let mut tags = concepts::tags_in(text);
        tags.extend(read.tags(text, vector));
        let ours = |of: &[&str]| {
            tags.iter()
                .any(|t| of.contains(&t.as_str()) || (of.contains(&"opening") && t.starts_with("opening:")))
        };
        let mut wrong = Vec::new();
        for (theirs, of) in THEIRS {
            let (tagged, labelled) = (ours(of), labels.iter().any(|l| l == theirs));
            let e = self.0.entry(theirs).or_default();
            e[0] += usize::from(tagged && labelled);
            e[1] += usize::from(tagged);
            e[2] += usize::from(labelled);
            if tagged != labelled {
                wrong.push(format!("{}{theirs}", if tagged { "+" } else { "-" }));
            }
        }
        wrong
    }

    /// Prints precision and recall per concept and over all, and returns them.
    pub fn report(&self) -> Value {
        let ratio = |a: usize, b: usize| a as f64 / b.max(1) as f64;
        println!("{:<14} {:>6} {:>6} {:>6}", "concept", "P", "R", "labelled");
        let mut total = [0; 3];
        for (concept, [hit, tagged, labelled]) in &self.0 {
            println!(
                "{concept:<14} {:>6.2} {:>6.2} {labelled:>6}",
                ratio(*hit, *tagged),
                ratio(*hit, *labelled)
            );
            (0..3).for_each(|k| total[k] += [hit, tagged, labelled][k]);
        }
        let (p, r) = (ratio(total[0], total[1]), ratio(total[0], total[2]));
        let f1 = 2.0 * p * r / (p + r).max(f64::EPSILON);
        println!("concepts over all: precision {p:.3}, recall {r:.3}, F1 {f1:.3}");
        json!({ "precision": p, "recall": r, "f1": f1, "per_concept": self.0 })
    }
}
