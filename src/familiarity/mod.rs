//! How well a persona knows a player, from their record together: the
//! games played (a game left unfinished counts a quarter), how hard-fought
//! they were, whether the player told something of themselves, and their
//! courtesy (thanks, compliments and apologies; trash talk cools it). Time
//! apart fades it: half in `HALF_LIFE_DAYS`. The points it makes place the
//! player at a stage (stranger, acquaintance, regular, old friend) at the
//! thresholds the persona's file gives; its lines are written per stage.
//!
//! Derived from the record alone (`ledger.rs` reads it from SQL and keeps
//! the points after each game as its history), so it can be made anew.

pub mod ledger;
mod rows;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::ids::MatchId;

/// Time apart halves the points in this many days.
pub const HALF_LIFE_DAYS: f64 = 180.0;

/// How well the persona knows the player, in the order it grows.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    utoipa::ToSchema,
    strum::IntoStaticStr,
    strum::EnumIter,
    strum::EnumString,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum Stage {
    #[default]
    Stranger,
    Acquaintance,
    Regular,
    OldFriend,
}

impl Stage {
    pub const ALL: [Stage; 4] = [Stage::Stranger, Stage::Acquaintance, Stage::Regular, Stage::OldFriend];

    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// "an old friend", for sentences.
    pub fn described(self) -> &'static str {
        match self {
            Stage::Stranger => "a stranger",
            Stage::Acquaintance => "an acquaintance",
            Stage::Regular => "a regular",
            Stage::OldFriend => "an old friend",
        }
    }

    fn next(self) -> Option<Stage> {
        Stage::ALL.get(self as usize + 1).copied()
    }
}

/// Where each stage begins, in points, and how long an absence is noticed
/// (a persona file's `[familiarity]`; a warmer persona has lower ones).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Thresholds {
    pub acquaintance: f64,
    pub regular: f64,
    pub old_friend: f64,
    pub long_absence_days: u32,
}

impl Default for Thresholds {
    fn default() -> Thresholds {
        Thresholds {
            acquaintance: 1.0,
            regular: 4.0,
            old_friend: 9.0,
            long_absence_days: 14,
        }
    }
}

impl Thresholds {
    pub fn stage(&self, points: f64) -> Stage {
        Stage::ALL
            .into_iter()
            .rev()
            .find(|s| points >= self.start(*s))
            .unwrap_or(Stage::Stranger)
    }

    /// The points where `stage` begins.
    pub fn start(&self, stage: Stage) -> f64 {
        match stage {
            Stage::Stranger => 0.0,
            Stage::Acquaintance => self.acquaintance,
            Stage::Regular => self.regular,
            Stage::OldFriend => self.old_friend,
        }
    }

    /// Why these thresholds cannot place anyone, if they cannot.
    pub fn check(&self) -> Result<(), String> {
        let ordered = 0.0 < self.acquaintance && self.acquaintance < self.regular && self.regular < self.old_friend;
        match ordered && self.long_absence_days > 0 {
            true => Ok(()),
            false => Err(format!(
                "familiarity thresholds must rise from above 0 (acquaintance {} < regular {} < old_friend {}) \
                 and long_absence_days be at least 1",
                self.acquaintance, self.regular, self.old_friend
            )),
        }
    }
}

/// What one game together was, as the record tells it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Together {
    pub match_id: MatchId,
    pub played_at: DateTime<Utc>,
    /// Played to a result (not left unfinished).
    pub finished: bool,
    /// A draw, or a game of 30 moves or more.
    pub hard_fought: bool,
    /// Lines in which the player told something of themselves.
    pub shared: u32,
    /// Thanks, compliments, apologies, greetings and farewells.
    pub courteous: u32,
    /// Trash talk.
    pub rude: u32,
}

impl Together {
    /// The points this game adds.
    pub fn points(&self) -> f64 {
        let game = if self.finished { 1.0 } else { 0.25 };
        let fought = if self.hard_fought { 0.25 } else { 0.0 };
        let shared = match self.shared {
            0 => 0.0,
            1 | 2 => 0.5,
            _ => 0.75,
        };
        let courtesy = match (self.courteous, self.rude) {
            (_, rude @ 1..) => -0.5 * f64::from(rude.min(2)),
            (0, 0) => 0.0,
            _ => 0.25,
        };
        game + fought + shared + courtesy
    }
}

/// A game together and the points after it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[schema(as = FamiliarityEntry)]
pub struct Entry {
    #[serde(flatten)]
    pub game: Together,
    pub points: f64,
}

/// Points `days` apart fade to this share.
fn faded(points: f64, days: f64) -> f64 {
    points * 0.5f64.powf(days.max(0.0) / HALF_LIFE_DAYS)
}

fn days_between(from: DateTime<Utc>, to: DateTime<Utc>) -> f64 {
    (to - from).num_seconds() as f64 / 86_400.0
}

/// The points after each game, the games in the order played.
pub fn replay(games: &[Together]) -> Vec<Entry> {
    let mut out: Vec<Entry> = Vec::with_capacity(games.len());
    for game in games {
        let before = out
            .last()
            .map_or(0.0, |e| faded(e.points, days_between(e.game.played_at, game.played_at)));
        out.push(Entry {
            game: game.clone(),
            points: (before + game.points()).max(0.0),
        });
    }
    out
}

/// How well the persona knows the player now: what the persona's lines and
/// the model are told, and what the player sees.
#[derive(Debug, Clone, Default, PartialEq, Serialize, utoipa::ToSchema)]
pub struct Familiarity {
    pub stage: Stage,
    /// The points now, faded by the time since the last game.
    pub points: f64,
    /// Games played to a result together.
    pub games: u32,
    /// Games in which the player told something of themselves.
    pub shared_in: u32,
    pub last_played: Option<DateTime<Utc>>,
    /// Whole days since the last game together.
    pub days_away: Option<i64>,
    /// Away at least the persona's `long_absence_days`: it notices.
    pub long_absence: bool,
    /// The stage after this one and the points still missing for it.
    pub next: Option<Stage>,
    pub points_to_next: Option<f64>,
}

impl Familiarity {
    /// From the history (oldest first), as of `now`.
    pub fn of(history: &[Entry], thresholds: &Thresholds, now: DateTime<Utc>) -> Familiarity {
        let Some(last) = history.last() else {
            return Familiarity {
                next: Some(Stage::Acquaintance),
                points_to_next: Some(thresholds.acquaintance),
                ..Familiarity::default()
            };
        };
        // Faded by whole days apart: an hour after a game the persona knows
        // the player as that game left it, the stage its history shows.
        let days_away = (now - last.game.played_at).num_days();
        let points = faded(last.points, days_away as f64);
        let stage = thresholds.stage(points);
        let next = stage.next();
        Familiarity {
            stage,
            points: (points * 100.0).round() / 100.0,
            games: history.iter().filter(|e| e.game.finished).count() as u32,
            shared_in: history.iter().filter(|e| e.game.shared > 0).count() as u32,
            last_played: Some(last.game.played_at),
            days_away: Some(days_away),
            long_absence: days_away >= i64::from(thresholds.long_absence_days),
            next,
            points_to_next: next.map(|n| ((thresholds.start(n) - points) * 100.0).round() / 100.0),
        }
    }

    /// "three weeks", "a month", "five months": the absence in words.
    pub fn absence_words(&self) -> String {
        absence_words(self.days_away.unwrap_or(0))
    }

    /// One line for the model and the logs.
    pub fn describe(&self) -> String {
        let mut out = format!("{} ({} games together", self.stage.as_str(), self.games);
        if let Some(days) = self.days_away {
            out.push_str(&format!(", the last {days} days ago"));
        }
        if self.long_absence {
            out.push_str(&format!("; away {}: notice it", self.absence_words()));
        }
        out.push(')');
        out
    }
}

/// A span of days as a person says it.
pub fn absence_words(days: i64) -> String {
    const NUMBERS: [&str; 12] = [
        "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
    ];
    let count = |n: i64, unit: &str| match n {
        1 => format!("a {unit}"),
        n if (2..=12).contains(&n) => format!("{} {unit}s", NUMBERS[n as usize - 1]),
        n => format!("{n} {unit}s"),
    };
    match days {
        ..=13 => count(days.max(1), "day"),
        14..=27 => count((days + 3) / 7, "week"),
        28..=364 => count((days + 15) / 30, "month"),
        _ => count((days + 182) / 365, "year"),
    }
}

#[cfg(test)]
mod tests;
pub use rows::EndedGame;
