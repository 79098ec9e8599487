//! `[limits]`: what one client may start and hold, so a script cannot fill
//! a node and slow every honest game on it: who may register, live matches
//! and sockets per player, requests per token and per address.

use ipnet::IpNet;
use serde::{Deserialize, Serialize};

use super::declare::{env, section};

/// Who may create a player.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, strum::IntoStaticStr, strum::EnumIter)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
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
        use strum::IntoEnumIterator;
        Registration::iter()
            .find(|r| <&str>::from(r) == s)
            .ok_or_else(|| format!("'{s}': use open, invite or admin"))
    }
}

/// The proxies whose word on the client's address is believed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct TrustedProxies(Vec<IpNet>);

impl TrustedProxies {
    /// Whether `peer` is one of them.
    pub fn trusts(&self, peer: std::net::IpAddr) -> bool {
        self.0.iter().any(|net| net.contains(&peer))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl TryFrom<String> for TrustedProxies {
    type Error = String;
    fn try_from(entries: String) -> Result<Self, String> {
        entries.parse()
    }
}

/// As written: comma-separated, one address without its /32 (/128).
impl From<TrustedProxies> for String {
    fn from(proxies: TrustedProxies) -> String {
        let shown = proxies
            .0
            .iter()
            .map(|net| match net.prefix_len() == net.max_prefix_len() {
                true => net.addr().to_string(),
                false => net.to_string(),
            });
        shown.collect::<Vec<_>>().join(", ")
    }
}

impl std::str::FromStr for TrustedProxies {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let entries = s.split(',').map(str::trim).filter(|e| !e.is_empty());
        entries.map(proxy_net).collect::<Result<_, _>>().map(TrustedProxies)
    }
}

/// `10.0.0.0/8`, or one address as its own /32 (/128).
fn proxy_net(entry: &str) -> Result<IpNet, String> {
    let entry = entry.trim();
    entry
        .parse::<IpNet>()
        .or_else(|_| entry.parse::<std::net::IpAddr>().map(IpNet::from))
        .map_err(|_| format!("'{entry}' is neither an address nor a CIDR (10.0.0.0/8)"))
}

section! {
    /// What one client may start and hold.
    pub struct LimitsConfig {
        /// Who may create a player: `open` (anyone), `invite` (a code from
        /// `POST /api/admin/invites`) or `admin` (only the admin).
        pub registration: Registration = Registration::Open, env("KIBITZ_REGISTRATION");
        /// New players one address may create per hour in open registration.
        pub registrations_per_hour: u32 = 10, env("KIBITZ_REGISTRATIONS_PER_HOUR");
        /// Unfinished matches one player may hold (another with the same
        /// persona resumes the unfinished one instead).
        pub live_matches_per_player: u32 = 3, env("KIBITZ_LIVE_MATCHES_PER_PLAYER");
        /// Open WebSockets per player.
        pub sockets_per_player: u32 = 8, env("KIBITZ_SOCKETS_PER_PLAYER");
        /// ... and per match.
        pub sockets_per_match: u32 = 4, env("KIBITZ_SOCKETS_PER_MATCH");
        /// Requests per minute on any route, per bearer token (0: no limit).
        pub requests_per_minute_per_token: u32 = 600, env("KIBITZ_REQUESTS_PER_MINUTE_PER_TOKEN");
        /// ... and per address (0: no limit). An IPv6 address counts by its
        /// /64, which one host is usually given whole.
        pub requests_per_minute_per_address: u32 = 1200, env("KIBITZ_REQUESTS_PER_MINUTE_PER_ADDRESS");
        /// The proxies in front of kibitz, addresses or CIDRs comma-separated
        /// (`"127.0.0.1, 10.0.0.0/8"`): from a peer among them
        /// the client's address is read from `X-Forwarded-For` (its rightmost
        /// address that is not a trusted proxy) or `X-Real-IP`; from any other
        /// peer those headers are ignored. Empty: the peer is the client.
        pub trusted_proxies: TrustedProxies = TrustedProxies::default(), env("KIBITZ_TRUSTED_PROXIES");
        /// Rate-limit buckets kept at most; past it the least recently used
        /// one is forgotten (its client starts afresh).
        pub max_buckets: usize = 100_000, env("KIBITZ_MAX_RATE_BUCKETS");
        /// How long an invite code stays good.
        pub invite_ttl_hours: u32 = 72, env("KIBITZ_INVITE_TTL_HOURS");
        /// New matches are turned away (503 `busy`) while a search waits longer
        /// than this for an engine worker, so the live ones keep their pace
        /// (0: never).
        pub busy_engine_wait_ms: u64 = 1000, env("KIBITZ_BUSY_ENGINE_WAIT_MS");
        /// ... and while the runtime's timers fire this late (smoothed): the
        /// cores are saturated, whatever by (0: never).
        pub busy_lag_ms: u64 = 20, env("KIBITZ_BUSY_LAG_MS");
        /// ... and while the players' moves lately take longer than this to be
        /// answered (their 90th percentile; 0: never, the default: what is slow
        /// depends on the persona's search time).
        pub busy_move_reply_ms: u64 = 0, env("KIBITZ_BUSY_MOVE_REPLY_MS");
        /// ... and while the matches' writes lately wait longer than this for
        /// their commit (90th percentile; one writer serves every match).
        pub busy_commit_wait_ms: u64 = 100, env("KIBITZ_BUSY_COMMIT_WAIT_MS");
        /// A match in which the player has neither moved nor written for this
        /// long ends as abandoned (0: never).
        pub abandon_after_hours: f64 = 24.0, env("KIBITZ_ABANDON_AFTER_HOURS");
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
    /// How long a match may go untouched before it ends as abandoned.
    pub fn abandon_after(&self) -> Option<std::time::Duration> {
        let secs = self.abandon_after_hours * 3600.0;
        (secs.is_finite() && secs > 0.0).then(|| std::time::Duration::from_secs_f64(secs))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trusted_proxies_are_addresses_or_cidrs() {
        let proxies: TrustedProxies = "127.0.0.1, 10.0.0.0/8,::1".parse().unwrap();
        assert!(proxies.trusts("127.0.0.1".parse().unwrap()));
        assert!(!proxies.trusts("127.0.0.2".parse().unwrap()), "one address is a /32");
        assert!(proxies.trusts("10.200.3.4".parse().unwrap()));
        assert!(proxies.trusts("::1".parse().unwrap()));
        assert!(!proxies.trusts("192.168.1.1".parse().unwrap()));
        let bad = "10.0.0.0/33".parse::<TrustedProxies>().unwrap_err();
        assert!(bad.contains("10.0.0.0/33"), "{bad}");
        assert!("".parse::<TrustedProxies>().unwrap().is_empty());
        assert_eq!(String::from(proxies), "127.0.0.1, 10.0.0.0/8, ::1", "shown as written");
    }
}
