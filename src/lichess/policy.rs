//! Which challenges a persona takes: the configuration's policy, narrowed
//! by the persona's own file, and the reason Lichess is given for a no.

use crate::config::ChallengePolicy;
use crate::personas::LichessLimits;

use super::wire::{Challenge, DeclineReason, TimeControl};

/// The configuration's policy as a persona's own limits narrow it.
pub fn narrowed(policy: &ChallengePolicy, persona: &LichessLimits) -> ChallengePolicy {
    let most = |of: u32, limit: Option<u32>| limit.map_or(of, |l| if of == 0 { l } else { of.min(l) });
    ChallengePolicy {
        min_initial_secs: policy.min_initial_secs.max(persona.min_initial_secs.unwrap_or(0)),
        max_initial_secs: policy
            .max_initial_secs
            .min(persona.max_initial_secs.unwrap_or(u32::MAX)),
        max_games: policy.max_games.min(persona.max_games.unwrap_or(u32::MAX)),
        min_rating: policy.min_rating.max(persona.min_rating.unwrap_or(0)),
        max_rating: most(policy.max_rating, persona.max_rating),
        rated: policy.rated && persona.rated.unwrap_or(true),
        casual: policy.casual && persona.casual.unwrap_or(true),
        bots: policy.bots && persona.bots.unwrap_or(true),
        ..policy.clone()
    }
}

/// What the policy says to a challenge, given the games playing now.
pub fn judge(policy: &ChallengePolicy, challenge: &Challenge, playing: usize) -> Result<(), DeclineReason> {
    let variant = challenge.variant.key.as_str();
    if !policy.variants.iter().any(|v| v == variant) {
        return Err(if variant == "standard" {
            DeclineReason::Standard
        } else {
            DeclineReason::Variant
        });
    }
    match challenge.time_control {
        TimeControl::Clock { limit, increment } => {
            // Lichess's own measure of a game's length: the initial time
            // and forty increments.
            if limit + 40 * increment < policy.min_initial_secs {
                return Err(DeclineReason::TooFast);
            }
            if limit > policy.max_initial_secs {
                return Err(DeclineReason::TooSlow);
            }
            if increment > policy.max_increment_secs {
                return Err(DeclineReason::TimeControl);
            }
        }
        TimeControl::Correspondence { .. } | TimeControl::Unlimited if !policy.unlimited => {
            return Err(DeclineReason::TooSlow);
        }
        _ => {}
    }
    if challenge.rated && !policy.rated {
        return Err(DeclineReason::Casual);
    }
    if !challenge.rated && !policy.casual {
        return Err(DeclineReason::Rated);
    }
    let is_bot = challenge.challenger.title.as_deref() == Some("BOT");
    if is_bot && !policy.bots {
        return Err(DeclineReason::NoBot);
    }
    if let Some(rating) = challenge.challenger.rating {
        let below = policy.min_rating > 0 && rating < policy.min_rating;
        let above = policy.max_rating > 0 && rating > policy.max_rating;
        if below || above {
            return Err(DeclineReason::Generic);
        }
    }
    // A set position kibitz cannot set up (or one already over) is declined.
    if let Some(fen) = challenge.initial_fen.as_deref().filter(|f| *f != "startpos") {
        let playable = crate::chess::Game::new(Some(fen)).is_ok_and(|g| g.end().is_none());
        if !playable {
            return Err(DeclineReason::Standard);
        }
    }
    if playing >= policy.max_games as usize {
        return Err(DeclineReason::Later);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lichess::wire::{ChallengeUser, Variant};

    fn challenge(variant: &str, tc: TimeControl, rated: bool, title: Option<&str>, rating: u32) -> Challenge {
        Challenge {
            id: "c1".into(),
            challenger: ChallengeUser {
                id: "ann".into(),
                name: "Ann".into(),
                rating: Some(rating),
                title: title.map(Into::into),
            },
            dest_user: None,
            variant: Variant { key: variant.into() },
            rated,
            speed: "rapid".into(),
            time_control: tc,
            initial_fen: None,
            direction: Some("in".into()),
        }
    }

    fn clock(limit: u32, increment: u32) -> TimeControl {
        TimeControl::Clock { limit, increment }
    }

    #[test]
    fn each_rule_declines_with_its_reason() {
        let p = ChallengePolicy {
            min_rating: 1000,
            max_rating: 2200,
            ..ChallengePolicy::default()
        };
        let ok = challenge("standard", clock(600, 5), true, None, 1500);
        assert_eq!(judge(&p, &ok, 0), Ok(()));
        let cases = [
            (
                challenge("chess960", clock(600, 5), true, None, 1500),
                0,
                DeclineReason::Variant,
            ),
            (
                challenge("standard", clock(60, 0), true, None, 1500),
                0,
                DeclineReason::TooFast,
            ),
            (
                challenge("standard", clock(20_000, 0), true, None, 1500),
                0,
                DeclineReason::TooSlow,
            ),
            (
                challenge("standard", clock(600, 120), true, None, 1500),
                0,
                DeclineReason::TimeControl,
            ),
            (
                challenge(
                    "standard",
                    TimeControl::Correspondence { days_per_turn: Some(2) },
                    true,
                    None,
                    1500,
                ),
                0,
                DeclineReason::TooSlow,
            ),
            (
                challenge("standard", clock(600, 5), true, Some("BOT"), 1500),
                0,
                DeclineReason::NoBot,
            ),
            (
                challenge("standard", clock(600, 5), true, None, 900),
                0,
                DeclineReason::Generic,
            ),
            (
                challenge("standard", clock(600, 5), true, None, 2500),
                0,
                DeclineReason::Generic,
            ),
            (
                challenge("standard", clock(600, 5), true, None, 1500),
                2,
                DeclineReason::Later,
            ),
        ];
        let mut mated = challenge("fromPosition", clock(600, 5), true, None, 1500);
        mated.initial_fen = Some("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1".into());
        assert_eq!(
            judge(&p, &mated, 0),
            Err(DeclineReason::Standard),
            "a position already over"
        );
        for (i, (c, playing, reason)) in cases.into_iter().enumerate() {
            assert_eq!(judge(&p, &c, playing), Err(reason), "case {i}");
        }
        // 1+3 lasts 180 s by Lichess's measure (the time and 40 increments).
        let one_plus_three = challenge("standard", clock(60, 3), true, None, 1500);
        assert_eq!(judge(&p, &one_plus_three, 0), Ok(()));
        let casual_only = ChallengePolicy {
            rated: false,
            ..ChallengePolicy::default()
        };
        assert_eq!(judge(&casual_only, &ok, 0), Err(DeclineReason::Casual));
        let slow_thinker = LichessLimits {
            min_initial_secs: Some(900),
            max_rating: Some(2000),
            rated: Some(false),
            ..LichessLimits::default()
        };
        let narrow = narrowed(&ChallengePolicy::default(), &slow_thinker);
        assert_eq!(
            (narrow.min_initial_secs, narrow.max_rating, narrow.rated),
            (900, 2000, false)
        );
        assert_eq!(judge(&narrow, &ok, 0), Err(DeclineReason::TooFast));
        let loose = LichessLimits {
            min_initial_secs: Some(10),
            bots: Some(true),
            ..LichessLimits::default()
        };
        let same = narrowed(&ChallengePolicy::default(), &loose);
        assert_eq!(
            (same.min_initial_secs, same.bots),
            (180, false),
            "a persona only narrows"
        );
        let rated_only = ChallengePolicy {
            casual: false,
            ..ChallengePolicy::default()
        };
        let casual = challenge("standard", clock(600, 5), false, None, 1500);
        assert_eq!(judge(&rated_only, &casual, 0), Err(DeclineReason::Rated));
    }
}
