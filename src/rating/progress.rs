//! The facts of a player's progress the persona may speak of, computed from
//! the rating history, never guessed: the rating now, the change over the
//! last month (or since the rating was established), a personal best, the
//! last game's change.

use chrono::{DateTime, Duration, NaiveDate, Utc};
use serde::Serialize;

use super::{Entry, PROVISIONAL_GAMES, START, figure};

/// The window a trend is measured over.
pub const TREND_DAYS: i64 = 30;
/// A change of at least this many points is progress (or a slump) worth
/// a remark.
pub const NOTABLE: f64 = 50.0;

#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct Progress {
    pub rating: f64,
    pub deviation: f64,
    pub games: usize,
    /// Fewer than `PROVISIONAL_GAMES` rated games.
    pub provisional: bool,
    /// The change since a date: the rating a month ago, or (for a player
    /// newer than that) the first established one. None until there is one.
    pub change: Option<Change>,
    /// The highest established rating.
    pub best: Option<f64>,
    /// Whether the latest game set that best (above an earlier best).
    pub personal_best: bool,
    /// What the latest game changed.
    pub last_change: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, utoipa::ToSchema)]
pub struct Change {
    pub points: f64,
    pub since: NaiveDate,
}

/// Where a player is heading, for the persona's remark.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trend {
    PersonalBest,
    Rising,
    Slump,
    Steady,
}

/// The progress a history shows at `now`; None with no rated game.
pub fn progress(history: &[Entry], now: DateTime<Utc>) -> Option<Progress> {
    let last = history.last()?;
    let established = history.get(PROVISIONAL_GAMES - 1..).unwrap_or_default();
    let cutoff = now - Duration::days(TREND_DAYS);
    let baseline = established
        .iter()
        .rev()
        .find(|e| e.played_at <= cutoff)
        .or_else(|| established.first())
        .filter(|b| b.match_id != last.match_id);
    let best = established
        .iter()
        .map(|e| e.rating)
        .fold(None, |m: Option<f64>, r| Some(m.map_or(r, |m| m.max(r))));
    let earlier_best = established[..established.len().saturating_sub(1)]
        .iter()
        .map(|e| e.rating)
        .fold(f64::NEG_INFINITY, f64::max);
    let before = history.len().checked_sub(2).map_or(START.rating, |i| history[i].rating);
    Some(Progress {
        rating: last.rating,
        deviation: last.deviation,
        games: history.len(),
        provisional: history.len() < PROVISIONAL_GAMES,
        change: baseline.map(|b| Change {
            points: last.rating - b.rating,
            since: b.played_at.date_naive(),
        }),
        best,
        personal_best: established.len() > 1 && last.rating > earlier_best,
        last_change: last.rating - before,
    })
}

impl Progress {
    /// The facts in one line, for the game context and the prompt:
    /// "rating 1,340 ± 80 after 12 rated games; +110 since 2026-10-01".
    pub fn describe(&self) -> String {
        let mut out = format!("rating {}", self.standing());
        if self.provisional {
            out.push_str(" (provisional)");
        }
        if let Some(change) = self.change {
            out.push_str(&format!("; {} since {}", signed(change.points), change.since));
        }
        if self.personal_best {
            out.push_str("; a personal best");
        }
        out
    }

    /// "1,340 ± 80 after 12 rated games".
    pub fn standing(&self) -> String {
        format!(
            "{} ± {} after {} rated game{}",
            figure(self.rating),
            self.deviation.round(),
            self.games,
            if self.games == 1 { "" } else { "s" }
        )
    }

    pub fn trend(&self) -> Trend {
        let points = self.change.map_or(0.0, |c| c.points);
        if self.personal_best {
            Trend::PersonalBest
        } else if points >= NOTABLE {
            Trend::Rising
        } else if points <= -NOTABLE {
            Trend::Slump
        } else {
            Trend::Steady
        }
    }
}

/// A change as a player reads it: "+110", "-35", "±0".
pub fn signed(points: f64) -> String {
    let n = points.round();
    if n > 0.0 {
        format!("+{}", figure(n))
    } else if n < 0.0 {
        format!("-{}", figure(-n))
    } else {
        "±0".to_string()
    }
}
