//! Rate limits: a token bucket per key (a match for its commands, a player
//! for memory writes, a client address for registrations, a token or an
//! address for every request), as deep as its allowance and refilled
//! continuously. Over the limit is a 429 with the wait in the message and
//! `Retry-After`. The buckets are bounded: past `limits.max_buckets` the
//! least recently used is forgotten, at O(1) a request.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use axum::extract::{ConnectInfo, Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use hashlink::LruCache;

use super::client::ClientAddress;
use super::error::ApiError;
use super::forward::Relay;
use crate::config::{Config, TrustedProxies};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Limit {
    /// What a match asks of its persona: chat, hints, explanations,
    /// takebacks and draw offers (each a trigger, maybe a model call or a
    /// full-strength search).
    Command,
    MemoryWrite,
    /// New players from one address.
    Registration,
    /// Any request or WebSocket frame, by its bearer token.
    RequestByToken,
    /// Any request, by its client's address.
    RequestByAddress,
}

impl Limit {
    /// Its label in the metrics.
    fn name(self) -> &'static str {
        match self {
            Limit::Command => "command",
            Limit::MemoryWrite => "memory_write",
            Limit::Registration => "registration",
            Limit::RequestByToken => "request_by_token",
            Limit::RequestByAddress => "request_by_address",
        }
    }

    fn what(self) -> (&'static str, &'static str) {
        match self {
            Limit::Command => ("messages and requests to the persona", "a minute"),
            Limit::MemoryWrite => ("memory changes", "a minute"),
            Limit::Registration => ("new players from this address", "an hour"),
            Limit::RequestByToken | Limit::RequestByAddress => ("requests", "a minute"),
        }
    }
}

/// A bucket's depth and how fast it refills.
#[derive(Clone, Copy)]
struct Allowance {
    depth: f64,
    per_second: f64,
}

impl Allowance {
    fn per_minute(n: u32) -> Allowance {
        Allowance {
            depth: f64::from(n),
            per_second: f64::from(n) / 60.0,
        }
    }

    fn per_hour(n: u32) -> Allowance {
        Allowance {
            depth: f64::from(n),
            per_second: f64::from(n) / 3600.0,
        }
    }
}

/// Tokens left in a bucket, as of when it was last touched.
struct Bucket {
    tokens: f64,
    at: Instant,
}

pub struct RateLimits {
    allowances: HashMap<Limit, Allowance>,
    buckets: Mutex<LruCache<(Limit, String), Bucket>>,
    proxies: TrustedProxies,
}

impl RateLimits {
    pub fn new(config: &Config) -> Self {
        let l = &config.limits;
        let allowances = HashMap::from([
            (Limit::Command, Allowance::per_minute(config.chat_per_minute)),
            (
                Limit::MemoryWrite,
                Allowance::per_minute(config.memory_writes_per_minute),
            ),
            (Limit::Registration, Allowance::per_hour(l.registrations_per_hour)),
            (
                Limit::RequestByToken,
                Allowance::per_minute(l.requests_per_minute_per_token),
            ),
            (
                Limit::RequestByAddress,
                Allowance::per_minute(l.requests_per_minute_per_address),
            ),
        ]);
        RateLimits {
            allowances,
            buckets: Mutex::new(LruCache::new(l.max_buckets.max(1))),
            proxies: l.trusted_proxies.clone(),
        }
    }

    /// Whether `limit` limits anything (0 turns it off).
    pub fn enabled(&self, limit: Limit) -> bool {
        self.allowances.get(&limit).is_some_and(|a| a.depth > 0.0)
    }

    /// Takes one token for `key`, or says how long to wait.
    pub fn take(&self, limit: Limit, key: &str) -> Result<(), ApiError> {
        self.take_weighted(limit, key, 1.0)
    }

    /// Takes `weight` tokens for `key` (a dearer request weighs more), or
    /// says how long to wait. A request that weighs more than the bucket
    /// holds goes through from a full bucket and leaves it in debt, so
    /// what comes after waits until its whole weight has refilled.
    pub fn take_weighted(&self, limit: Limit, key: &str, weight: f64) -> Result<(), ApiError> {
        let Some(&Allowance { depth, per_second }) = self.allowances.get(&limit).filter(|a| a.depth > 0.0) else {
            return Ok(());
        };
        let weight = weight.max(0.0);
        let Ok(mut buckets) = self.buckets.lock() else {
            return Ok(());
        };
        let bucket = refilled(&mut buckets, limit, key, depth, per_second);
        if bucket.tokens >= weight.min(depth) {
            bucket.tokens -= weight;
            return Ok(());
        }
        let wait = ((weight.min(depth) - bucket.tokens) / per_second).ceil() as u64;
        let (what, per) = limit.what();
        crate::telemetry::rate_limited(limit.name());
        let message = format!("too many {what}: at most {depth} {per}; try again in {wait} s");
        Err(ApiError::new(StatusCode::TOO_MANY_REQUESTS, "rate_limited", message).retry_after(wait))
    }

    /// Takes `weight` more tokens for work already let in (an import's
    /// memories past its first), however few are left: the bucket goes
    /// into debt and what comes after waits.
    pub fn charge(&self, limit: Limit, key: &str, weight: f64) {
        let Some(&Allowance { depth, per_second }) = self.allowances.get(&limit).filter(|a| a.depth > 0.0) else {
            return;
        };
        let Ok(mut buckets) = self.buckets.lock() else {
            return;
        };
        refilled(&mut buckets, limit, key, depth, per_second).tokens -= weight.max(0.0);
    }

    /// Takes a token for one request (or WebSocket frame) from `token`'s
    /// bucket, when that limit is on; the token is keyed by its hash, never
    /// kept as sent.
    pub fn take_for_token(&self, token: Option<&str>) -> Result<(), ApiError> {
        match token {
            Some(token) if self.enabled(Limit::RequestByToken) => {
                self.take(Limit::RequestByToken, &crate::tokens::hash(token))
            }
            _ => Ok(()),
        }
    }

    /// How many buckets are kept now.
    #[cfg(test)]
    fn kept(&self) -> usize {
        self.buckets.lock().map_or(0, |b| b.len())
    }
}

/// `key`'s bucket for `limit` (a full one if it had none), refilled for
/// the time since it was last touched. A used bucket moves to the back;
/// the cache drops the front one (the least recently used) when full.
fn refilled<'a>(
    buckets: &'a mut LruCache<(Limit, String), Bucket>,
    limit: Limit,
    key: &str,
    depth: f64,
    per_second: f64,
) -> &'a mut Bucket {
    let now = Instant::now();
    let id = (limit, key.to_string());
    if !buckets.contains_key(&id) {
        buckets.insert(id.clone(), Bucket { tokens: depth, at: now });
    }
    let bucket = buckets.get_mut(&id).expect("just made sure of it");
    bucket.tokens = (bucket.tokens + now.duration_since(bucket.at).as_secs_f64() * per_second).min(depth);
    bucket.at = now;
    bucket
}

/// What a command asks of its persona, in the match's command budget
/// (`chat_per_minute`): a trigger each, maybe a model call; a hint is a
/// full-strength search and weighs three. Moves, resigning, answering a
/// draw offer and the talk mode cost nothing here.
pub fn command_weight(cmd: &crate::runtime::UserCommand) -> Option<f64> {
    use crate::runtime::UserCommand as C;
    match cmd {
        C::Chat(_) | C::Explain | C::Takeback | C::OfferDraw | C::Puzzle(_) => Some(1.0),
        C::Hint => Some(3.0),
        C::Move(_) | C::Resign | C::AcceptDraw | C::DeclineDraw | C::Talk(_) => None,
    }
}

/// Takes what `cmd` costs from match `id`'s command budget.
pub fn ration(limits: &RateLimits, id: crate::ids::MatchId, cmd: &crate::runtime::UserCommand) -> Result<(), ApiError> {
    match command_weight(cmd) {
        Some(weight) => limits.take_weighted(Limit::Command, &id.to_string(), weight),
        None => Ok(()),
    }
}

/// The one limiter every request passes: it works out the client
/// (`client.rs`; kept as a request extension for the routes) and takes a
/// token from its address's bucket and, if it carries a bearer token, from
/// that token's. A request relayed by another node of the club is charged
/// here too, to the client the relaying node names; only a node's own call
/// (`/internal/`, with the secret) is no client's.
pub async fn every_request(
    State(limits): State<Arc<RateLimits>>,
    State(relay): State<Arc<Relay>>,
    mut req: Request,
    next: Next,
) -> Response {
    let relayed = relay.relayed(req.headers());
    if relayed && req.uri().path().starts_with("/internal/") {
        return next.run(req).await;
    }
    let peer = req
        .extensions()
        .get::<ConnectInfo<std::net::SocketAddr>>()
        .map(|c| c.0.ip());
    let client = ClientAddress::resolve(peer, req.headers(), &limits.proxies, relayed);
    req.extensions_mut().insert(client);
    let token = super::auth::bearer(req.headers()).ok();
    let taken = limits
        .take(Limit::RequestByAddress, &client.key())
        .and_then(|()| limits.take_for_token(token));
    match taken {
        Ok(()) => next.run(req).await,
        Err(e) => e.into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(chat: u32, memory: u32) -> RateLimits {
        let mut config = Config::from_toml("", |_| None).unwrap();
        (config.chat_per_minute, config.memory_writes_per_minute) = (chat, memory);
        config.limits.registrations_per_hour = 2;
        RateLimits::new(&config)
    }

    #[test]
    fn a_bucket_allows_its_depth_then_refuses_per_key() {
        let limits = limits(3, 0);
        for _ in 0..3 {
            assert!(limits.take(Limit::Command, "m1").is_ok());
        }
        let refused = limits.take(Limit::Command, "m1").unwrap_err();
        assert_eq!(refused.status, StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(refused.retry_after, Some(20), "one message refills in 20 s");
        assert!(
            limits.take(Limit::Command, "m2").is_ok(),
            "another match has its own bucket"
        );
        assert!(limits.take(Limit::MemoryWrite, "p1").is_ok(), "0 means unlimited");
    }

    #[test]
    fn registrations_refill_by_the_hour() {
        let limits = limits(3, 0);
        assert!(limits.take(Limit::Registration, "10.0.0.1").is_ok());
        assert!(limits.take(Limit::Registration, "10.0.0.1").is_ok());
        let refused = limits.take(Limit::Registration, "10.0.0.1").unwrap_err();
        assert_eq!(refused.retry_after, Some(1800), "{}", refused.message);
        assert!(refused.message.contains("an hour"), "{}", refused.message);
    }

    #[test]
    fn buckets_are_bounded_and_the_least_recently_used_goes_first() {
        let mut config = Config::from_toml("", |_| None).unwrap();
        config.chat_per_minute = 2;
        config.limits.max_buckets = 3;
        let limits = RateLimits::new(&config);
        for key in ["a", "b", "c"] {
            limits.take(Limit::Command, key).unwrap();
        }
        limits.take(Limit::Command, "a").unwrap();
        assert!(limits.take(Limit::Command, "a").is_err(), "a is empty");
        // d pushes out b, the least recently used (a was used since).
        limits.take(Limit::Command, "d").unwrap();
        assert_eq!(limits.kept(), 3, "never more than the cap");
        assert!(limits.take(Limit::Command, "a").is_err(), "a was kept, still empty");
        limits.take(Limit::Command, "b").unwrap();
        limits.take(Limit::Command, "b").unwrap();
        assert!(
            limits.take(Limit::Command, "b").is_err(),
            "b came back full (forgotten), then emptied"
        );
    }

    #[test]
    fn a_dear_request_weighs_more() {
        let limits = limits(5, 0);
        limits.take_weighted(Limit::Command, "m", 3.0).unwrap();
        let refused = limits.take_weighted(Limit::Command, "m", 3.0).unwrap_err();
        assert_eq!(refused.retry_after, Some(12), "one token short: 12 s at 5 a minute");
        limits.take(Limit::Command, "m").unwrap();
        limits.take(Limit::Command, "m").unwrap();
        assert!(limits.take(Limit::Command, "m").is_err());
    }

    #[test]
    fn a_request_dearer_than_the_bucket_leaves_it_in_debt() {
        let limits = limits(0, 10);
        limits.take_weighted(Limit::MemoryWrite, "p", 40.0).unwrap();
        let refused = limits.take(Limit::MemoryWrite, "p").unwrap_err();
        assert!(
            refused.retry_after.is_some_and(|s| s >= 185),
            "31 tokens to refill at 10 a minute: {:?}",
            refused.retry_after
        );
    }
}
