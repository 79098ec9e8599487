//! Which personas give a player a fair game, and the strength a persona
//! plays at when the player asks it to adapt.

use serde::Serialize;

use super::glicko2::expected_score;
use super::{PERSONA_DEVIATION, Rating, figure};
use crate::ids::PersonaId;

/// A pairing is fair when the player's expected score lies in this range.
pub const FAIR: std::ops::RangeInclusive<f64> = 0.3..=0.7;
/// How far from its card's Elo a persona may adapt its strength: beyond it
/// the persona would no longer be the player its card describes (and its
/// node budget was calibrated at the card's Elo).
pub const ADAPT_RANGE: u32 = 200;

/// What a game against one persona promises this player.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct Pairing {
    pub persona_id: PersonaId,
    pub persona_rating: u32,
    /// The player's expected score (0..1), both deviations counted.
    pub expected_score: f64,
    /// Whether the expected score is within 0.3..=0.7.
    pub fair: bool,
    /// Why, in a sentence for the lobby.
    pub why: String,
}

/// The pairing of a player (`rated_games` played so far) with a persona.
pub fn pairing(
    player: Rating,
    rated_games: usize,
    persona_id: &PersonaId,
    persona_name: &str,
    persona_elo: u32,
) -> Pairing {
    let expected = expected_score(
        player.rating,
        player.deviation,
        f64::from(persona_elo),
        PERSONA_DEVIATION,
    );
    let fair = FAIR.contains(&expected);
    let yours = match rated_games {
        0 => "you have no rated games yet, so you count as 1,500 ± 350".to_string(),
        n => format!(
            "your {} ± {} from {n} rated game{}",
            figure(player.rating),
            player.deviation.round(),
            if n == 1 { "" } else { "s" }
        ),
    };
    let theirs = format!("{persona_name} plays at {}", figure(f64::from(persona_elo)));
    let verdict = if fair {
        "a fair game"
    } else if expected < *FAIR.start() {
        "likely too strong for you for now"
    } else {
        "likely too easy for you"
    };
    Pairing {
        persona_id: persona_id.into(),
        persona_rating: persona_elo,
        expected_score: (expected * 100.0).round() / 100.0,
        fair,
        why: format!("expected score {expected:.2}: {yours}; {theirs}: {verdict}"),
    }
}

/// The lowest and highest strength a persona of this card may adapt to.
pub fn adapt_range(card_elo: u32) -> (u32, u32) {
    (card_elo.saturating_sub(ADAPT_RANGE).max(400), card_elo + ADAPT_RANGE)
}

/// The strength that gives this player an expected score nearest 0.5: their
/// own rating, within the card's range.
pub fn adapted_strength(player: Rating, card_elo: u32) -> u32 {
    let (low, high) = adapt_range(card_elo);
    (player.rating.round().max(0.0) as u32).clamp(low, high)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rating::START;

    fn rated(rating: f64, deviation: f64) -> Rating {
        Rating {
            rating,
            deviation,
            volatility: 0.06,
        }
    }

    #[test]
    fn a_newcomer_is_fairly_paired_only_near_the_centre() {
        let fair: Vec<bool> = [1200, 1500, 1800]
            .iter()
            .map(|&elo| pairing(START, 0, &"p".into(), "P", elo).fair)
            .collect();
        assert_eq!(fair, [false, true, false]);
        let why = pairing(START, 0, &"margot".into(), "Margot", 1500).why;
        assert!(
            why.contains("no rated games yet") && why.contains("a fair game"),
            "{why}"
        );
    }

    #[test]
    fn the_fair_range_follows_the_expected_score_both_ways() {
        // 150 points from either side: just within the fair range both ways.
        let player = rated(1350.0, 80.0);
        let weak = pairing(player, 12, &"pip".into(), "Pip", 1200);
        let even = pairing(player, 12, &"margot".into(), "Margot", 1500);
        let strong = pairing(player, 12, &"viktor".into(), "Viktor", 1800);
        assert!(weak.fair && even.fair && !strong.fair, "{weak:?} {even:?} {strong:?}");
        assert!(weak.expected_score > 0.5 && even.expected_score < 0.5);
        assert!(strong.why.contains("too strong"), "{}", strong.why);
        assert!(even.why.contains("1,350 ± 80 from 12 rated games"), "{}", even.why);
        let below = pairing(rated(1330.0, 80.0), 12, &"margot".into(), "Margot", 1500);
        assert!(!below.fair && below.why.contains("too strong"), "{below:?}");
        let expert = pairing(rated(1900.0, 50.0), 40, &"pip".into(), "Pip", 1200);
        assert!(!expert.fair && expert.why.contains("too easy"), "{expert:?}");
    }

    #[test]
    fn the_boundaries_of_fair_are_inclusive() {
        // Scan ratings finely: every pairing is fair exactly when its
        // unrounded expected score lies in 0.3..=0.7.
        for r in (900..2200).step_by(5) {
            let p = pairing(rated(f64::from(r), 40.0), 30, &"m".into(), "M", 1500);
            let e = expected_score(f64::from(r), 40.0, 1500.0, PERSONA_DEVIATION);
            assert_eq!(p.fair, (0.3..=0.7).contains(&e), "{r}: {e}");
        }
    }

    #[test]
    fn adapted_strength_stays_within_the_cards_range() {
        for card in [400, 1200, 1500, 1800, 3000] {
            let (low, high) = adapt_range(card);
            assert!(low >= 400 && high == card + ADAPT_RANGE);
            for r in (0..3600).step_by(50) {
                let s = adapted_strength(rated(f64::from(r), 100.0), card);
                assert!((low..=high).contains(&s), "card {card}, player {r}: {s}");
                if (f64::from(low)..=f64::from(high)).contains(&f64::from(r)) {
                    assert_eq!(s, r as u32, "within range the persona meets the player's own rating");
                }
            }
        }
        assert_eq!(adapted_strength(START, 1200), 1400);
        assert_eq!(adapted_strength(rated(1620.4, 60.0), 1500), 1620);
    }
}
