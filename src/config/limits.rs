//! `[limits]`: what one client may start and hold, so a script cannot fill
//! a node and slow every honest game on it: who may register, live matches
//! and sockets per player, requests per token and per address.

use serde::{Deserialize, Serialize};

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
            ..LimitsConfig::default()
        }
    }
}
