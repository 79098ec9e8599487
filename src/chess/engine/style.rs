//! How a persona's style bends an engine's choice. The engine plays at the
//! persona's Elo; among the moves it considered (MultiPV lines), any within a
//! small margin of its own pick may be preferred for taste: the aggressive
//! take and check, the defensive keep material, the tricky like checks. The
//! margin keeps strength where the Elo puts it.

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Move, Position};

use rand::Rng;

use super::{Score, SearchRequest, Style};

/// Centipawns below the engine's own pick that a styled move may cost.
pub const STYLE_MARGIN_CP: i32 = 30;

/// One line the engine considered: its first move and its score for the mover.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub uci: String,
    pub score: Score,
}

/// A nudge, in centipawns, for how well `m` suits `style`.
pub fn style_bonus(style: Style, m: &Move, after: &Chess) -> i32 {
    match style {
        Style::Aggressive => 25 * i32::from(m.is_capture()) + 30 * i32::from(after.is_check()),
        Style::Tricky => 20 * i32::from(after.is_check()),
        Style::Defensive => -10 * i32::from(m.is_capture()),
        Style::Positional => 0,
    }
}

/// Centipawns for comparing lines; mates dominate, sooner mates more so.
pub fn comparable(score: &Score) -> i32 {
    match *score {
        Score::Cp(cp) => cp,
        Score::Mate(n) if n > 0 => 100_000 - n,
        Score::Mate(n) => -100_000 - n,
    }
}

/// The engine's pick, or a candidate within `STYLE_MARGIN_CP` of it that suits
/// the style better. Unknown moves or positions leave the pick unchanged.
pub fn styled_pick(fen: &str, engine_pick: &str, candidates: &[Candidate], style: Style) -> String {
    let Some(pos) = parse(fen) else {
        return engine_pick.to_string();
    };
    let Some(pick_score) = candidates
        .iter()
        .find(|c| c.uci == engine_pick)
        .map(|c| comparable(&c.score))
    else {
        return engine_pick.to_string();
    };
    let taste = |uci: &str| -> Option<i32> {
        let m = uci.parse::<UciMove>().ok()?.to_move(&pos).ok()?;
        let mut after = pos.clone();
        after.play_unchecked(m);
        Some(style_bonus(style, &m, &after))
    };
    let pick_taste = taste(engine_pick).unwrap_or(0);
    candidates
        .iter()
        .filter(|c| comparable(&c.score) >= pick_score - STYLE_MARGIN_CP)
        .filter_map(|c| Some((c, taste(&c.uci)?)))
        .filter(|(_, t)| *t > pick_taste)
        .max_by_key(|(c, t)| comparable(&c.score) + t)
        .map(|(c, _)| c.uci.clone())
        .unwrap_or_else(|| engine_pick.to_string())
}

/// The engine's choice as the persona would make it: below the engine's
/// lowest Elo (`floor`), now and then another of the lines it considered (a
/// slip, like a weaker player's); otherwise the style's pick.
pub fn shape_choice(req: &SearchRequest, floor: Option<u32>, engine_pick: &str, lines: &[Candidate]) -> String {
    let lines: Vec<Candidate> = lines.iter().filter(|c| !c.uci.is_empty()).cloned().collect();
    let others: Vec<&Candidate> = lines.iter().filter(|c| c.uci != engine_pick).collect();
    let chance = floor.map_or(0.0, |f| slip_chance(req.elo, f));
    let mut rng = rand::thread_rng();
    if !others.is_empty() && rng.gen_bool(chance) {
        return others[rng.gen_range(0..others.len())].uci.clone();
    }
    styled_pick(&req.fen, engine_pick, &lines, req.style)
}

/// Share of moves that slip, growing with the gap below the engine's floor.
/// The slope is calibrated by `kibitz calibrate` (see docs/benchmarks.md).
pub fn slip_chance(elo: u32, floor: u32) -> f64 {
    (f64::from(floor.saturating_sub(elo)) / SLIP_ELO_PER_UNIT).clamp(0.0, 0.5)
}

/// Elo below the floor for which every move would slip (capped at half).
const SLIP_ELO_PER_UNIT: f64 = 500.0;

fn parse(fen: &str) -> Option<Chess> {
    fen.parse::<Fen>().ok()?.into_position(CastlingMode::Standard).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::engine::SearchBudget;

    /// White can take a knight on d5 (e4xd5) or play a quiet Nf3 of equal score.
    const FEN: &str = "rnbqkb1r/pppppppp/8/3n4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1";

    fn lines(scores: &[(&str, i32)]) -> Vec<Candidate> {
        scores
            .iter()
            .map(|(m, cp)| Candidate {
                uci: m.to_string(),
                score: Score::Cp(*cp),
            })
            .collect()
    }

    #[test]
    fn aggressive_prefers_a_capture_within_the_margin() {
        let c = lines(&[("g1f3", 40), ("e4d5", 25)]);
        assert_eq!(styled_pick(FEN, "g1f3", &c, Style::Aggressive), "e4d5");
        assert_eq!(styled_pick(FEN, "g1f3", &c, Style::Positional), "g1f3");
        assert_eq!(styled_pick(FEN, "g1f3", &c, Style::Defensive), "g1f3");
    }

    #[test]
    fn no_style_is_worth_a_large_loss() {
        let c = lines(&[("g1f3", 40), ("e4d5", -200)]);
        assert_eq!(styled_pick(FEN, "g1f3", &c, Style::Aggressive), "g1f3");
    }

    #[test]
    fn mates_outrank_any_material() {
        assert!(comparable(&Score::Mate(1)) > comparable(&Score::Mate(3)));
        assert!(comparable(&Score::Mate(-3)) > comparable(&Score::Mate(-1)));
        assert!(comparable(&Score::Cp(900)) < comparable(&Score::Mate(5)));
    }

    #[test]
    fn slips_only_below_the_floor() {
        assert_eq!(slip_chance(1500, 1350), 0.0);
        assert!(slip_chance(1200, 1350) > 0.0);
        assert!(slip_chance(0, 1350) <= 0.5);
        let req = SearchRequest {
            fen: FEN.into(),
            elo: 1500,
            style: Style::Positional,
            budget: SearchBudget::Millis(10),
        };
        let c = lines(&[("g1f3", 40), ("e4d5", -300)]);
        for _ in 0..50 {
            assert_eq!(shape_choice(&req, Some(1350), "g1f3", &c), "g1f3");
        }
        let weak = SearchRequest { elo: 100, ..req };
        let slipped = (0..200)
            .filter(|_| shape_choice(&weak, Some(1350), "g1f3", &c) == "e4d5")
            .count();
        assert!((50..150).contains(&slipped), "slipped {slipped} of 200");
    }

    #[test]
    fn an_unknown_pick_is_kept() {
        let c = lines(&[("e4d5", 25)]);
        assert_eq!(styled_pick(FEN, "g1f3", &c, Style::Aggressive), "g1f3");
        assert_eq!(styled_pick("not a fen", "g1f3", &c, Style::Aggressive), "g1f3");
    }
}
