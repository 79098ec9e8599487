//! Winning chances from engine scores, with Lichess's formula, and how much a
//! move cost its player: inaccuracy, mistake or blunder at 5 / 10 / 15 points.

use serde::Serialize;

use super::engine::uci::Score;

/// Centipawns beyond this say nothing more about the result.
const CP_CAP: i32 = 1000;
/// Lichess's logistic fit of results against centipawns.
const SLOPE: f64 = -0.003_682_08;

/// Win% (0..=100) for the side whose score this is.
pub fn win_pct(score: &Score) -> f64 {
    match *score {
        Score::Cp(cp) => {
            let cp = f64::from(cp.clamp(-CP_CAP, CP_CAP));
            50.0 + 50.0 * (2.0 / (1.0 + (SLOPE * cp).exp()) - 1.0)
        }
        // Mate 0 is "mated now", as an engine reports a mated side to move.
        Score::Mate(m) if m > 0 => 100.0,
        Score::Mate(_) => 0.0,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum MoveClass {
    Good,
    Inaccuracy,
    Mistake,
    Blunder,
}

impl MoveClass {
    /// From the win% points the mover lost (negative delta).
    pub fn from_delta(delta: f64) -> MoveClass {
        match -delta {
            lost if lost >= 15.0 => MoveClass::Blunder,
            lost if lost >= 10.0 => MoveClass::Mistake,
            lost if lost >= 5.0 => MoveClass::Inaccuracy,
            _ => MoveClass::Good,
        }
    }
}

/// The odds after one move.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, serde::Deserialize, utoipa::ToSchema)]
pub struct MoveOdds {
    /// White's win% after the move.
    pub white: f64,
    /// What the move changed for the player who made it (negative: lost).
    pub delta: f64,
    pub class: MoveClass,
    /// The engine's score after the move, from White's side (none for
    /// moves stored before scores were kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eval: Option<Eval>,
    /// Whether the deeper evaluation has checked this move; until it has
    /// (or if it was shed on a busy node), the odds are the quick search's.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub deep: bool,
}

/// An engine's score from White's side, as lichess writes one: `{"cp": 35}`
/// or `{"mate": -2}` (Black mates in two).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Eval {
    Cp(i32),
    Mate(i32),
}

impl Eval {
    /// From a score for the side to move.
    pub fn white(score: &Score, white_to_move: bool) -> Eval {
        let sign = if white_to_move { 1 } else { -1 };
        match *score {
            Score::Cp(cp) => Eval::Cp(sign * cp),
            // Mate 0 (the side to move is mated) stays 0: there is no eval.
            Score::Mate(m) => Eval::Mate(sign * m),
        }
    }

    /// As a PGN `[%eval]` says it: pawns with two decimals, or `#N` (`#-N`
    /// when Black mates). None for a side already mated: the game is over.
    pub fn pgn(&self) -> Option<String> {
        match *self {
            Eval::Cp(cp) => Some(format!("{:.2}", f64::from(cp) / 100.0)),
            Eval::Mate(0) => None,
            Eval::Mate(m) => Some(format!("#{m}")),
        }
    }

    /// From the two columns a move's row keeps it in.
    pub fn from_columns(cp: Option<i64>, mate: Option<i64>) -> Option<Eval> {
        match (cp, mate) {
            (_, Some(m)) => i32::try_from(m).ok().map(Eval::Mate),
            (Some(cp), None) => i32::try_from(cp).ok().map(Eval::Cp),
            (None, None) => None,
        }
    }

    /// The centipawns or the mate distance, for those columns.
    pub fn columns(eval: Option<Eval>) -> (Option<i64>, Option<i64>) {
        match eval {
            Some(Eval::Cp(cp)) => (Some(i64::from(cp)), None),
            Some(Eval::Mate(m)) => (None, Some(i64::from(m))),
            None => (None, None),
        }
    }
}

impl MoveOdds {
    /// `before_white` is White's win% before the move, `after_to_move` the
    /// engine's score after it, from the side now to move.
    pub fn new(before_white: f64, after_to_move: &Score, white_moved: bool) -> MoveOdds {
        let to_move = win_pct(after_to_move);
        let white = if white_moved { 100.0 - to_move } else { to_move };
        let delta = if white_moved {
            white - before_white
        } else {
            before_white - white
        };
        MoveOdds {
            white,
            delta,
            class: MoveClass::from_delta(delta),
            eval: Some(Eval::white(after_to_move, !white_moved)),
            deep: false,
        }
    }

    /// The same verdict, from the deeper evaluation.
    pub fn checked_deeply(self) -> MoveOdds {
        MoveOdds { deep: true, ..self }
    }
}

/// White's win% from a score given from the side to move.
pub fn white_pct(score: &Score, white_to_move: bool) -> f64 {
    let p = win_pct(score);
    if white_to_move { p } else { 100.0 - p }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lichess_curve() {
        assert!((win_pct(&Score::Cp(0)) - 50.0).abs() < 1e-9);
        // Lichess shows about 59% for +1.00 and 75% for +3.00.
        assert!(
            (win_pct(&Score::Cp(100)) - 59.1).abs() < 0.1,
            "{}",
            win_pct(&Score::Cp(100))
        );
        assert!(
            (win_pct(&Score::Cp(300)) - 75.1).abs() < 0.2,
            "{}",
            win_pct(&Score::Cp(300))
        );
        assert_eq!(win_pct(&Score::Cp(5000)), win_pct(&Score::Cp(1000)), "capped");
        assert!((win_pct(&Score::Cp(-100)) + win_pct(&Score::Cp(100)) - 100.0).abs() < 1e-9);
        assert_eq!(win_pct(&Score::Mate(3)), 100.0);
        assert_eq!(win_pct(&Score::Mate(-2)), 0.0);
        assert_eq!(win_pct(&Score::Mate(0)), 0.0);
    }

    #[test]
    fn a_score_is_kept_from_whites_side_as_a_pgn_says_it() {
        // White moved: Black to move is +0.35, so White is at -0.35.
        assert_eq!(Eval::white(&Score::Cp(35), false), Eval::Cp(-35));
        assert_eq!(Eval::white(&Score::Cp(35), true), Eval::Cp(35));
        assert_eq!(Eval::white(&Score::Mate(2), false), Eval::Mate(-2));
        assert_eq!(Eval::Cp(-35).pgn().as_deref(), Some("-0.35"));
        assert_eq!(Eval::Cp(120).pgn().as_deref(), Some("1.20"));
        assert_eq!(Eval::Mate(-2).pgn().as_deref(), Some("#-2"));
        assert_eq!(Eval::white(&Score::Mate(0), true).pgn(), None, "mated: no eval");
        for e in [Eval::Cp(-35), Eval::Mate(3), Eval::Mate(-1)] {
            let (cp, mate) = Eval::columns(Some(e));
            assert_eq!(Eval::from_columns(cp, mate), Some(e));
        }
        let odds = MoveOdds::new(50.0, &Score::Cp(-80), true);
        assert_eq!(odds.eval, Some(Eval::Cp(80)), "Black to move at -0.80: White +0.80");
        assert_eq!(
            serde_json::to_value(Eval::Mate(-2)).unwrap(),
            serde_json::json!({"mate": -2})
        );
    }

    #[test]
    fn classes_by_points_lost() {
        assert_eq!(MoveClass::from_delta(2.0), MoveClass::Good);
        assert_eq!(MoveClass::from_delta(-4.9), MoveClass::Good);
        assert_eq!(MoveClass::from_delta(-5.0), MoveClass::Inaccuracy);
        assert_eq!(MoveClass::from_delta(-10.0), MoveClass::Mistake);
        assert_eq!(MoveClass::from_delta(-15.0), MoveClass::Blunder);
    }

    #[test]
    fn odds_are_told_from_the_movers_side() {
        // White at 60% hangs the queen: Black to move is +9.
        let odds = MoveOdds::new(60.0, &Score::Cp(900), true);
        assert!(odds.white < 5.0, "{odds:?}");
        assert_eq!(odds.class, MoveClass::Blunder);
        // Black defends well: White to move is still only +0.2.
        let odds = MoveOdds::new(52.0, &Score::Cp(20), false);
        assert!(odds.delta.abs() < 1.0 && odds.class == MoveClass::Good, "{odds:?}");
        assert!((white_pct(&Score::Cp(100), false) - 40.9).abs() < 0.1);
    }
}
