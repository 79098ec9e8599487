//! Glicko-2 (Mark Glickman, "Example of the Glicko-2 system", 2013): a
//! rating, its deviation (how sure the rating is) and its volatility (how
//! erratic the player's results are). Pure arithmetic, on the Glicko scale
//! (1500 centre) outside and the Glicko-2 scale (mu, phi) inside.

/// The Glicko-2 scale factor: 400 / ln 10.
const SCALE: f64 = 173.7178;
/// The centre of the rating scale.
const CENTRE: f64 = 1500.0;
/// Where the volatility iteration stops (the paper's epsilon).
const EPSILON: f64 = 0.000_001;

/// A player's standing.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Rating {
    pub rating: f64,
    pub deviation: f64,
    pub volatility: f64,
}

/// One game of a rating period: the opponent's rating and deviation, and
/// the score (1 a win, 0.5 a draw, 0 a loss).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Outcome {
    pub opponent: f64,
    pub opponent_deviation: f64,
    pub score: f64,
}

impl Rating {
    /// The rating after one period of `games`, with the system constant
    /// `tau` (how much the volatility may change). No games: only the
    /// deviation grows, as the paper says for a period without play.
    pub fn after(self, games: &[Outcome], tau: f64) -> Rating {
        let (mu, phi, sigma) = self.inner();
        if games.is_empty() {
            return Rating::outer(mu, (phi * phi + sigma * sigma).sqrt(), sigma);
        }
        let (mut inv_v, mut sum) = (0.0, 0.0);
        for game in games {
            let (mu_j, phi_j) = ((game.opponent - CENTRE) / SCALE, game.opponent_deviation / SCALE);
            let (g, e) = (g(phi_j), expected(mu, mu_j, phi_j));
            inv_v += g * g * e * (1.0 - e);
            sum += g * (game.score - e);
        }
        let v = 1.0 / inv_v;
        let delta = v * sum;
        let sigma = new_volatility(phi, sigma, v, delta, tau);
        let phi_star = (phi * phi + sigma * sigma).sqrt();
        let phi = 1.0 / (1.0 / (phi_star * phi_star) + 1.0 / v).sqrt();
        Rating::outer(mu + phi * phi * sum, phi, sigma)
    }

    /// The deviation grown by `periods` rating periods without a game
    /// (fractions allowed), never past `cap`.
    pub fn idle(self, periods: f64, cap: f64) -> Rating {
        let (mu, phi, sigma) = self.inner();
        let phi = (phi * phi + sigma * sigma * periods.max(0.0)).sqrt();
        Rating {
            deviation: (phi * SCALE).min(cap),
            ..Rating::outer(mu, phi, sigma)
        }
    }

    fn inner(self) -> (f64, f64, f64) {
        ((self.rating - CENTRE) / SCALE, self.deviation / SCALE, self.volatility)
    }

    fn outer(mu: f64, phi: f64, sigma: f64) -> Rating {
        Rating {
            rating: mu * SCALE + CENTRE,
            deviation: phi * SCALE,
            volatility: sigma,
        }
    }
}

/// The expected score of `a` against `b`, both deviations counted (Glicko's
/// E with the combined deviation): what a pairing promises before it is
/// played.
pub fn expected_score(a: f64, a_deviation: f64, b: f64, b_deviation: f64) -> f64 {
    let combined = (a_deviation * a_deviation + b_deviation * b_deviation).sqrt() / SCALE;
    1.0 / (1.0 + (-g(combined) * (a - b) / SCALE).exp())
}

/// The weight an opponent's result gets for their deviation.
fn g(phi: f64) -> f64 {
    1.0 / (1.0 + 3.0 * phi * phi / (std::f64::consts::PI * std::f64::consts::PI)).sqrt()
}

fn expected(mu: f64, mu_j: f64, phi_j: f64) -> f64 {
    1.0 / (1.0 + (-g(phi_j) * (mu - mu_j)).exp())
}

/// Step 5 of the paper: the new volatility by the Illinois algorithm.
fn new_volatility(phi: f64, sigma: f64, v: f64, delta: f64, tau: f64) -> f64 {
    let a = (sigma * sigma).ln();
    let f = |x: f64| {
        let ex = x.exp();
        let d = phi * phi + v + ex;
        ex * (delta * delta - phi * phi - v - ex) / (2.0 * d * d) - (x - a) / (tau * tau)
    };
    let mut big_a = a;
    let mut big_b = if delta * delta > phi * phi + v {
        (delta * delta - phi * phi - v).ln()
    } else {
        let mut k = 1.0;
        while f(a - k * tau) < 0.0 {
            k += 1.0;
        }
        a - k * tau
    };
    let (mut f_a, mut f_b) = (f(big_a), f(big_b));
    while (big_b - big_a).abs() > EPSILON {
        let c = big_a + (big_a - big_b) * f_a / (f_b - f_a);
        let f_c = f(c);
        if f_c * f_b <= 0.0 {
            (big_a, f_a) = (big_b, f_b);
        } else {
            f_a /= 2.0;
        }
        (big_b, f_b) = (c, f_c);
    }
    (big_a / 2.0).exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The worked example of Glickman's paper: a 1500 player (deviation 200,
    /// volatility 0.06, tau 0.5) beats a 1400 (30), loses to a 1550 (100)
    /// and to a 1700 (300); the paper gives 1464.06, 151.52 and 0.05999.
    #[test]
    fn the_papers_worked_example() {
        let player = Rating {
            rating: 1500.0,
            deviation: 200.0,
            volatility: 0.06,
        };
        let games = [(1400.0, 30.0, 1.0), (1550.0, 100.0, 0.0), (1700.0, 300.0, 0.0)].map(
            |(opponent, opponent_deviation, score)| Outcome {
                opponent,
                opponent_deviation,
                score,
            },
        );
        let after = player.after(&games, 0.5);
        assert!((after.rating - 1464.06).abs() < 0.01, "{after:?}");
        assert!((after.deviation - 151.52).abs() < 0.01, "{after:?}");
        assert!((after.volatility - 0.05999).abs() < 0.000_01, "{after:?}");
    }

    #[test]
    fn a_period_without_games_only_grows_the_deviation() {
        let player = Rating {
            rating: 1640.0,
            deviation: 80.0,
            volatility: 0.06,
        };
        let after = player.after(&[], 0.5);
        assert_eq!(after.rating, player.rating);
        // sqrt(phi^2 + sigma^2) on the Glicko-2 scale.
        let phi = ((80.0 / SCALE).powi(2) + 0.06_f64.powi(2)).sqrt() * SCALE;
        assert!((after.deviation - phi).abs() < 1e-9, "{after:?}");
        let long_away = player.idle(10_000.0, 350.0);
        assert_eq!(long_away.deviation, 350.0);
        assert_eq!(long_away.rating, player.rating);
    }

    #[test]
    fn a_win_raises_a_loss_lowers_and_the_underdog_gains_more() {
        let me = Rating {
            rating: 1500.0,
            deviation: 120.0,
            volatility: 0.06,
        };
        let against = |opponent, score| Outcome {
            opponent,
            opponent_deviation: 60.0,
            score,
        };
        let beat_stronger = me.after(&[against(1800.0, 1.0)], 0.5).rating - 1500.0;
        let beat_weaker = me.after(&[against(1200.0, 1.0)], 0.5).rating - 1500.0;
        let lost_to_weaker = me.after(&[against(1200.0, 0.0)], 0.5).rating - 1500.0;
        assert!(beat_stronger > beat_weaker && beat_weaker > 0.0);
        assert!(lost_to_weaker < -beat_weaker);
        let drew_equal = me.after(&[against(1500.0, 0.5)], 0.5);
        assert!((drew_equal.rating - 1500.0).abs() < 1e-6);
        assert!(drew_equal.deviation < 120.0);
    }

    #[test]
    fn expected_score_is_even_between_equals_and_flattened_by_doubt() {
        assert!((expected_score(1500.0, 50.0, 1500.0, 50.0) - 0.5).abs() < 1e-12);
        let sure = expected_score(1700.0, 30.0, 1500.0, 30.0);
        let unsure = expected_score(1700.0, 350.0, 1500.0, 30.0);
        assert!(sure > unsure && unsure > 0.5, "{sure} {unsure}");
        // 200 points with little doubt is the Elo table's ~0.76.
        assert!((sure - 0.76).abs() < 0.01, "{sure}");
        let (a, b) = (
            expected_score(1300.0, 90.0, 1550.0, 60.0),
            expected_score(1550.0, 60.0, 1300.0, 90.0),
        );
        assert!((a + b - 1.0).abs() < 1e-12);
    }
}
