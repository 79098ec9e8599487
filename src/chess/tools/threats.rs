//! find_threats: our moves that create tactics (mate, forks, pins,
//! discovered attacks, winning captures, checks), ranked by what they
//! threaten. Each candidate is also checked for its own safety.

use serde::Serialize;
use shakmaty::{Chess, Move, Position};

use super::safety::see;
use super::themes::{discovers, is_fork, pin_after};
use super::{san, uci};

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Threat {
    pub san: String,
    pub uci: String,
    /// mate, fork, pin, discovered attack, wins material, check.
    pub tactics: Vec<&'static str>,
    /// Material won at once by the capture (static exchange), if any.
    pub wins: i32,
    /// Ranking: mate first, then what the tactics and the capture promise.
    pub potential: i32,
}

/// How many threats `find_threats` returns at most.
pub const MAX_THREATS: usize = 8;

pub fn find_threats(pos: &Chess) -> Vec<Threat> {
    let mut found: Vec<Threat> = pos.legal_moves().into_iter().filter_map(|m| threat(pos, m)).collect();
    found.sort_by_key(|t| std::cmp::Reverse(t.potential));
    found.truncate(MAX_THREATS);
    found
}

fn threat(pos: &Chess, m: Move) -> Option<Threat> {
    let me = pos.turn();
    let mut after = pos.clone();
    after.play_unchecked(m);
    let wins = if m.is_capture() {
        see(pos.board(), m.to(), me)
    } else {
        0
    };
    let checks = [
        (after.is_checkmate(), "mate", 1000),
        (is_fork(pos, m), "fork", 6),
        (pin_after(pos, m), "pin", 4),
        (discovers(pos, m), "discovered attack", 5),
        (wins > 0, "wins material", 0),
        (after.is_check() && !after.is_checkmate(), "check", 1),
    ];
    let tactics: Vec<&'static str> = checks
        .iter()
        .filter(|(yes, ..)| *yes)
        .map(|(_, name, _)| *name)
        .collect();
    if tactics.is_empty() {
        return None;
    }
    let potential = checks.iter().filter(|(yes, ..)| *yes).map(|(.., p)| p).sum::<i32>() + wins;
    Some(Threat {
        san: san(pos, m),
        uci: uci(m),
        tactics,
        wins,
        potential,
    })
}

impl Threat {
    pub fn to_text(&self) -> String {
        format!(
            "{}: {} (potential {})",
            self.san,
            self.tactics.join(", "),
            self.potential
        )
    }
}
