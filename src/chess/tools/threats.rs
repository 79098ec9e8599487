//! find_threats: our moves that create tactics (mate, forks, pins,
//! discovered attacks, winning captures, checks), ranked by what they
//! threaten. Each candidate is also checked for its own safety.

use serde::Serialize;
use shakmaty::{Chess, Move, Position};

use super::safety::see;
use super::themes::{discovers, is_fork, pin_after, skewer_after};
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
        (skewer_after(pos, m), "skewer", 4),
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

/// What the opponent threatens and how to meet it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Prophylaxis {
    /// The opponent's best tactics if it were its move now.
    pub threats: Vec<Threat>,
    /// Our moves after which the opponent's best threat is weakest, best first.
    pub defences: Vec<Defence>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Defence {
    pub san: String,
    pub uci: String,
    /// The opponent's strongest remaining threat after this move.
    pub remaining: i32,
}

/// How many defences `prophylaxis` proposes.
pub const MAX_DEFENCES: usize = 3;

pub fn prophylaxis(pos: &Chess) -> Prophylaxis {
    // Their threats as if they moved now (no passing out of check).
    let threats = pos.clone().swap_turn().map(|p| find_threats(&p)).unwrap_or_default();
    let worst = |p: &Chess| find_threats(p).first().map_or(0, |t| t.potential);
    let mut defences: Vec<Defence> = if threats.is_empty() {
        Vec::new()
    } else {
        pos.legal_moves()
            .into_iter()
            .map(|m| {
                let mut after = pos.clone();
                after.play_unchecked(m);
                Defence {
                    san: san(pos, m),
                    uci: uci(m),
                    remaining: worst(&after),
                }
            })
            .collect()
    };
    defences.sort_by_key(|d| d.remaining);
    defences.truncate(MAX_DEFENCES);
    Prophylaxis { threats, defences }
}

impl Prophylaxis {
    pub fn to_text(&self) -> String {
        if self.threats.is_empty() {
            return "the opponent threatens nothing tactical".into();
        }
        let threats: Vec<String> = self.threats.iter().take(3).map(Threat::to_text).collect();
        let defences: Vec<String> = self
            .defences
            .iter()
            .map(|d| format!("{} (leaves {})", d.san, d.remaining))
            .collect();
        format!(
            "opponent threatens: {}\nbest answers: {}",
            threats.join("; "),
            defences.join(", ")
        )
    }
}

/// A quiet setup move and the tactic it prepares for next move.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Combination {
    pub setup: String,
    pub follow_up: Threat,
}

/// Two-move combinations: after a setup move that does not lose its piece,
/// the best tactic we would have if the opponent did nothing about it.
pub fn deep_threats(pos: &Chess) -> Vec<Combination> {
    let me = pos.turn();
    let mut found: Vec<Combination> = pos
        .legal_moves()
        .into_iter()
        .filter_map(|m| {
            let mut after = pos.clone();
            after.play_unchecked(m);
            if see(after.board(), m.to(), !me) > 0 {
                return None;
            }
            // A check leaves the opponent no free move to pass with.
            let ours_again = after.swap_turn().ok()?;
            let follow_up = find_threats(&ours_again).into_iter().next()?;
            (follow_up.potential >= STRONG).then(|| Combination {
                setup: san(pos, m),
                follow_up,
            })
        })
        .collect();
    found.sort_by_key(|c| std::cmp::Reverse(c.follow_up.potential));
    found.truncate(MAX_THREATS);
    found
}

/// A follow-up worth a combination: a fork, a discovered attack, mate, or
/// winning material.
const STRONG: i32 = 5;

impl Combination {
    pub fn to_text(&self) -> String {
        format!("{} then {}", self.setup, self.follow_up.to_text())
    }
}
