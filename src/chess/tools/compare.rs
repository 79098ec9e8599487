//! compare: candidate moves side by side (safety, tactics, material after)
//! with a one-word verdict each and a summary table for prompts.

use serde::Serialize;
use shakmaty::{Chess, Move, Position};

use super::perception::material;
use super::safety::{MoveSafety, eval};
use super::threats::find_threats;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Candidate {
    pub safety: MoveSafety,
    /// Material balance after the move, from the mover's side.
    pub material_after: i32,
    /// The opponent's best tactic afterwards (its potential, 0 if none).
    pub opponent_threat: i32,
    /// "mates", "loses to mate", "hangs", "risky" or "sound".
    pub verdict: &'static str,
}

/// A threat this strong after the move makes it risky (a fork or better).
const RISKY: i32 = 5;

pub fn compare(pos: &Chess, moves: &[Move]) -> Vec<Candidate> {
    let white = pos.turn().is_white();
    moves
        .iter()
        .map(|&m| {
            let safety = eval(pos, m);
            let mut after = pos.clone();
            after.play_unchecked(m);
            let balance = material(&after).balance;
            let opponent_threat = find_threats(&after).first().map_or(0, |t| t.potential);
            let verdict = if safety.mates {
                "mates"
            } else if safety.allows_mate_in_one.is_some() {
                "loses to mate"
            } else if safety.hangs {
                "hangs"
            } else if opponent_threat >= RISKY {
                "risky"
            } else {
                "sound"
            };
            Candidate {
                safety,
                material_after: if white { balance } else { -balance },
                opponent_threat,
                verdict,
            }
        })
        .collect()
}

pub fn table(candidates: &[Candidate]) -> String {
    let mut rows = vec!["move | verdict | material | their best threat".to_string()];
    rows.extend(candidates.iter().map(|c| {
        format!(
            "{} | {} | {:+} | {}",
            c.safety.san, c.verdict, c.material_after, c.opponent_threat
        )
    }));
    rows.join("\n")
}
