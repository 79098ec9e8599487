//! A persona's playing strength from games against engines of known Elo:
//! the maximum-likelihood rating under the Elo model (expected score
//! 1 / (1 + 10^((opponent - r) / 400)), draws as half a point), and a 95%
//! error bar from the Fisher information.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct EloEstimate {
    pub elo: f64,
    /// Half-width of the 95% interval.
    pub plus_minus: f64,
    pub games: usize,
}

fn expected(r: f64, opponent: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf((opponent - r) / 400.0))
}

/// `games` holds (opponent's Elo, our score: 1, 0.5 or 0) per game. With a
/// perfect or zero score the estimate is bounded to 400 past the strongest or
/// weakest opponent, and the error bar says so by being wide.
pub fn estimate_elo(games: &[(f64, f64)]) -> Option<EloEstimate> {
    if games.is_empty() {
        return None;
    }
    let lo = games.iter().map(|g| g.0).fold(f64::INFINITY, f64::min) - 400.0;
    let hi = games.iter().map(|g| g.0).fold(f64::NEG_INFINITY, f64::max) + 400.0;
    // The log-likelihood's slope falls as r rises: bisect for its zero.
    let slope = |r: f64| games.iter().map(|&(o, s)| s - expected(r, o)).sum::<f64>();
    let (mut a, mut b) = (lo, hi);
    for _ in 0..60 {
        let mid = (a + b) / 2.0;
        if slope(mid) > 0.0 {
            a = mid;
        } else {
            b = mid;
        }
    }
    let elo = (a + b) / 2.0;
    let k = std::f64::consts::LN_10 / 400.0;
    let information: f64 = games
        .iter()
        .map(|&(o, _)| {
            let e = expected(elo, o);
            k * k * e * (1.0 - e)
        })
        .sum();
    Some(EloEstimate {
        elo,
        plus_minus: 1.96 / information.sqrt(),
        games: games.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_even_score_against_one_level_is_that_level() {
        let games = [(1500.0, 1.0), (1500.0, 0.0), (1500.0, 0.5), (1500.0, 0.5)];
        let e = estimate_elo(&games).unwrap();
        assert!((e.elo - 1500.0).abs() < 0.5, "{e:?}");
    }

    #[test]
    fn three_quarters_is_about_191_above() {
        let games = [(1600.0, 1.0), (1600.0, 1.0), (1600.0, 1.0), (1600.0, 0.0)];
        let e = estimate_elo(&games).unwrap();
        assert!((e.elo - 1790.8).abs() < 1.0, "{e:?}");
    }

    #[test]
    fn more_games_narrow_the_error_bar() {
        let few: Vec<(f64, f64)> = (0..10).map(|i| (1500.0, f64::from(i % 2))).collect();
        let many: Vec<(f64, f64)> = (0..100).map(|i| (1500.0, f64::from(i % 2))).collect();
        let (f, m) = (estimate_elo(&few).unwrap(), estimate_elo(&many).unwrap());
        assert!(m.plus_minus < f.plus_minus / 3.0, "{f:?} {m:?}");
        assert!(estimate_elo(&[]).is_none());
    }

    #[test]
    fn a_perfect_score_is_bounded() {
        let e = estimate_elo(&[(1500.0, 1.0), (1500.0, 1.0)]).unwrap();
        assert!(e.elo > 1800.0 && e.elo <= 1900.0, "{e:?}");
    }
}
