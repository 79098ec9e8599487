//! `[lichess]`: personas playing as BOT accounts on Lichess (`kibitz
//! lichess`, or beside the club in `kibitz serve`), which challenges they
//! take, and the sign-in with Lichess that lets their opponents see what the
//! persona remembers of them.

use serde::{Deserialize, Serialize};

use super::ConfigError;
use super::declare::{NONE, env, section};

/// A persona's BOT account. The token is read from the environment only,
/// never written in a file, logged or shown.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LichessAccount {
    pub persona: String,
    /// The environment variable that holds the account's API token (scope
    /// `bot:play`).
    pub token_env: String,
}

impl LichessAccount {
    pub fn token(&self) -> Option<String> {
        std::env::var(&self.token_env).ok().filter(|t| !t.trim().is_empty())
    }
}

section! {
    /// Challenges a persona accepts on Lichess; a persona's file may narrow
    /// them in its own `[lichess]` table.
    pub struct ChallengePolicy {
        /// Variants accepted ("standard", "fromPosition"; kibitz plays no other).
        pub variants: Vec<String> = vec!["standard".into(), "fromPosition".into()], NONE;
        /// Shortest initial clock accepted, in seconds (below it: "tooFast").
        pub min_initial_secs: u32 = 180, NONE;
        /// Longest initial clock accepted, in seconds (above it: "tooSlow").
        pub max_initial_secs: u32 = 3 * 3600, NONE;
        /// Largest increment accepted, in seconds.
        pub max_increment_secs: u32 = 60, NONE;
        /// Correspondence and unlimited games (no clock) are accepted.
        pub unlimited: bool = false, NONE;
        /// Rated games are accepted.
        pub rated: bool = true, NONE;
        /// Casual games are accepted.
        pub casual: bool = true, NONE;
        /// Games at once per account; a challenge beyond them is declined "later".
        pub max_games: u32 = 2, NONE;
        /// The lowest opponent rating accepted (0: any).
        pub min_rating: u32 = 0, NONE;
        /// The highest opponent rating accepted (0: any).
        pub max_rating: u32 = 0, NONE;
        /// Challenges from other bots are accepted.
        pub bots: bool = false, NONE;
    }
}

section! {
    /// Personas as Lichess BOT accounts.
    pub struct LichessConfig {
        /// The Lichess server (tests point it at their fake).
        #[serde(serialize_with = "super::redact::url")]
        pub url: String = "https://lichess.org".into(), env("KIBITZ_LICHESS_URL").url();
        /// Each persona's account: `[[lichess.accounts]] persona = "viktor", token_env = "..."`.
        pub accounts: Vec<LichessAccount> = Vec::new(), NONE;
        /// This node follows the accounts. In a club of several nodes, leave it
        /// on for one node only: two nodes following one account would both play its games.
        pub play: bool = true, env("KIBITZ_LICHESS_PLAY");
        pub challenges: ChallengePolicy = ChallengePolicy::default(), NONE;
        /// After an HTTP 429 no request is made for this long (Lichess asks a full minute).
        pub rate_limit_wait_secs: f64 = 60.0, env("KIBITZ_LICHESS_RATE_LIMIT_WAIT_SECS");
        /// A dropped stream is opened again after 1 s, 2 s, 4 s ... up to this.
        pub reconnect_max_secs: f64 = 60.0, env("KIBITZ_LICHESS_RECONNECT_MAX_SECS");
        /// The longest line Lichess's chat takes; longer ones are split.
        pub chat_line_chars: usize = 140, NONE;
        /// The club's address as players' browsers reach it, for the sign-in
        /// with Lichess to come back to (empty: http://<listen>).
        pub public_url: String = String::new(), env("KIBITZ_PUBLIC_URL");
    }
}

impl LichessConfig {
    pub(super) fn validate(&self) -> Result<(), ConfigError> {
        let invalid = |key, message: String| Err(ConfigError::Invalid { key, message });
        if !(self.rate_limit_wait_secs >= 0.0 && self.rate_limit_wait_secs <= 3600.0) {
            return invalid(
                "lichess.rate_limit_wait_secs",
                format!("{}: use 0 to 3600", self.rate_limit_wait_secs),
            );
        }
        if !(self.reconnect_max_secs >= 0.1 && self.reconnect_max_secs <= 3600.0) {
            return invalid(
                "lichess.reconnect_max_secs",
                format!("{}: use 0.1 to 3600", self.reconnect_max_secs),
            );
        }
        if !(20..=140).contains(&self.chat_line_chars) {
            return invalid(
                "lichess.chat_line_chars",
                format!("{}: use 20 to 140", self.chat_line_chars),
            );
        }
        for variant in &self.challenges.variants {
            if !["standard", "fromPosition"].contains(&variant.as_str()) {
                return invalid(
                    "lichess.challenges.variants",
                    format!("{variant}: kibitz plays standard and fromPosition"),
                );
            }
        }
        let mut seen = std::collections::HashSet::new();
        for account in &self.accounts {
            if !seen.insert(&account.persona) {
                return invalid(
                    "lichess.accounts",
                    format!("{} has two accounts: give each persona one", account.persona),
                );
            }
        }
        Ok(())
    }
}
