//! `[limits]`: what one client may start and hold, so a script cannot fill
//! a node and slow every honest game on it: who may register, live matches
//! and sockets per player, requests per token and per address.

use serde::{Deserialize, Serialize};

use super::{ConfigError, parse_env};

/// Who may create a player.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Registration {
    /// Anyone, at most `registrations_per_hour` from one address.
    Open,
    /// With a code an admin issued (single use, expiring).
    Invite,
    /// Only the admin (its bearer token).
    Admin,
}

impl std::str::FromStr for Registration {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "open" => Ok(Registration::Open),
            "invite" => Ok(Registration::Invite),
            "admin" => Ok(Registration::Admin),
            other => Err(format!("'{other}': use open, invite or admin")),
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct LimitsConfig {
    pub registration: Registration,
    /// New players one address may create per hour in open registration.
    pub registrations_per_hour: u32,
    /// Unfinished matches one player may hold (another with the same
    /// persona resumes the unfinished one instead).
    pub live_matches_per_player: u32,
    /// Open WebSockets per player, and per match.
    pub sockets_per_player: u32,
    pub sockets_per_match: u32,
    /// Requests per minute on any route, per bearer token and per address
    /// (0: no limit).
    pub requests_per_minute_per_token: u32,
    pub requests_per_minute_per_address: u32,
    /// How long an invite code stays good.
    pub invite_ttl_hours: u32,
    /// New matches are turned away (503 `busy`) while a search waits longer
    /// than this for an engine worker, so the live ones keep their pace
    /// (0: never).
    pub busy_engine_wait_ms: u64,
    /// ... and while the runtime's timers fire this late (smoothed): the
    /// cores are saturated, whatever by (0: never).
    pub busy_lag_ms: u64,
    /// ... and while the players' moves lately take longer than this to be
    /// answered (their 90th percentile; 0: never, the default: what is slow
    /// depends on the persona's search time).
    pub busy_move_reply_ms: u64,
    /// ... and while the matches' writes lately wait longer than this for
    /// their commit (90th percentile; one writer serves every match).
    pub busy_commit_wait_ms: u64,
    /// A match in which the player has neither moved nor written for this
    /// long ends as abandoned (0: never).
    pub abandon_after_hours: f64,
}

impl Default for LimitsConfig {
    fn default() -> Self {
        LimitsConfig {
            registration: Registration::Open,
            registrations_per_hour: 10,
            live_matches_per_player: 3,
            sockets_per_player: 8,
            sockets_per_match: 4,
            requests_per_minute_per_token: 600,
            requests_per_minute_per_address: 1200,
            invite_ttl_hours: 72,
            busy_engine_wait_ms: 1000,
            busy_lag_ms: 20,
            busy_move_reply_ms: 0,
            busy_commit_wait_ms: 100,
            abandon_after_hours: 24.0,
        }
    }
}

impl LimitsConfig {
    /// No rate or count limits: for benchmarks that drive a server from
    /// one address with many players.
    pub fn unlimited() -> LimitsConfig {
        LimitsConfig {
            registrations_per_hour: 0,
            live_matches_per_player: 0,
            sockets_per_player: 0,
            sockets_per_match: 0,
            requests_per_minute_per_token: 0,
            requests_per_minute_per_address: 0,
            busy_engine_wait_ms: 0,
            busy_lag_ms: 0,
            busy_move_reply_ms: 0,
            busy_commit_wait_ms: 0,
            ..LimitsConfig::default()
        }
    }
}

impl LimitsConfig {
    /// These limits with their `KIBITZ_*` overrides.
    pub(super) fn with_env(self, env: &impl Fn(&str) -> Option<String>) -> Result<LimitsConfig, ConfigError> {
        let or = |var, file| parse_env(env, var).map(|v| v.unwrap_or(file));
        let or64 = |var, file| parse_env(env, var).map(|v| v.unwrap_or(file));
        Ok(LimitsConfig {
            registration: parse_env(env, "KIBITZ_REGISTRATION")?.unwrap_or(self.registration),
            registrations_per_hour: or("KIBITZ_REGISTRATIONS_PER_HOUR", self.registrations_per_hour)?,
            live_matches_per_player: or("KIBITZ_LIVE_MATCHES_PER_PLAYER", self.live_matches_per_player)?,
            sockets_per_player: or("KIBITZ_SOCKETS_PER_PLAYER", self.sockets_per_player)?,
            sockets_per_match: or("KIBITZ_SOCKETS_PER_MATCH", self.sockets_per_match)?,
            requests_per_minute_per_token: or(
                "KIBITZ_REQUESTS_PER_MINUTE_PER_TOKEN",
                self.requests_per_minute_per_token,
            )?,
            requests_per_minute_per_address: or(
                "KIBITZ_REQUESTS_PER_MINUTE_PER_ADDRESS",
                self.requests_per_minute_per_address,
            )?,
            invite_ttl_hours: or("KIBITZ_INVITE_TTL_HOURS", self.invite_ttl_hours)?,
            busy_engine_wait_ms: or64("KIBITZ_BUSY_ENGINE_WAIT_MS", self.busy_engine_wait_ms)?,
            busy_lag_ms: or64("KIBITZ_BUSY_LAG_MS", self.busy_lag_ms)?,
            busy_move_reply_ms: or64("KIBITZ_BUSY_MOVE_REPLY_MS", self.busy_move_reply_ms)?,
            busy_commit_wait_ms: or64("KIBITZ_BUSY_COMMIT_WAIT_MS", self.busy_commit_wait_ms)?,
            abandon_after_hours: parse_env(env, "KIBITZ_ABANDON_AFTER_HOURS")?.unwrap_or(self.abandon_after_hours),
        })
    }
}

impl LimitsConfig {
    /// How long a match may go untouched before it ends as abandoned.
    pub fn abandon_after(&self) -> Option<std::time::Duration> {
        let secs = self.abandon_after_hours * 3600.0;
        (secs.is_finite() && secs > 0.0).then(|| std::time::Duration::from_secs_f64(secs))
    }
}
