//! Rate limits: a token bucket per key (a match for chat, a player for
//! memory writes, an address for registrations, a token or an address for
//! every request), as deep as its allowance and refilled continuously.
//! Over the limit is a 429 with the wait in the message and `Retry-After`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::error::ApiError;
use super::extract::PeerAddress;
use super::forward::Relay;
use crate::config::Config;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Limit {
    Chat,
    MemoryWrite,
    /// New players from one address.
    Registration,
    /// Any request, by its bearer token.
    RequestByToken,
    /// Any request, by its address.
    RequestByAddress,
}

impl Limit {
    fn what(self) -> (&'static str, &'static str) {
        match self {
            Limit::Chat => ("messages", "a minute"),
            Limit::MemoryWrite => ("memory changes", "a minute"),
            Limit::Registration => ("new players from this address", "an hour"),
            Limit::RequestByToken | Limit::RequestByAddress => ("requests", "a minute"),
        }
    }
}

/// Buckets kept at most; full ones are dropped first when there are more.
const MAX_BUCKETS: usize = 100_000;

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

pub struct RateLimits {
    allowances: HashMap<Limit, Allowance>,
    buckets: Mutex<HashMap<(Limit, String), (f64, Instant)>>,
}

impl RateLimits {
    pub fn new(config: &Config) -> Self {
        let l = &config.limits;
        let allowances = HashMap::from([
            (Limit::Chat, Allowance::per_minute(config.chat_per_minute)),
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
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Whether `limit` limits anything (0 turns it off).
    pub fn enabled(&self, limit: Limit) -> bool {
        self.allowances.get(&limit).is_some_and(|a| a.depth > 0.0)
    }

    /// Takes one token for `key`, or says how long to wait.
    pub fn take(&self, limit: Limit, key: &str) -> Result<(), ApiError> {
        let Some(&Allowance { depth, per_second }) = self.allowances.get(&limit).filter(|a| a.depth > 0.0) else {
            return Ok(());
        };
        let now = Instant::now();
        let Ok(mut buckets) = self.buckets.lock() else {
            return Ok(());
        };
        if buckets.len() >= MAX_BUCKETS {
            buckets.retain(|(l, _), (tokens, at)| {
                let a = self.allowances[l];
                *tokens + at.elapsed().as_secs_f64() * a.per_second < a.depth
            });
        }
        let (tokens, at) = buckets.entry((limit, key.to_string())).or_insert((depth, now));
        *tokens = (*tokens + now.duration_since(*at).as_secs_f64() * per_second).min(depth);
        *at = now;
        if *tokens >= 1.0 {
            *tokens -= 1.0;
            return Ok(());
        }
        let wait = ((1.0 - *tokens) / per_second).ceil() as u64;
        let (what, per) = limit.what();
        let message = format!("too many {what}: at most {depth} {per}; try again in {wait} s");
        Err(ApiError::new(StatusCode::TOO_MANY_REQUESTS, "rate_limited", message).retry_after(wait))
    }
}

/// The one limiter every request passes: a token from its address's
/// bucket and, if it carries a bearer token, from that token's.
pub async fn every_request(
    State(limits): State<Arc<RateLimits>>,
    State(relay): State<Arc<Relay>>,
    req: Request,
    next: Next,
) -> Response {
    // Relayed by another node of the cluster, which took these already.
    if relay.relayed(req.headers()) {
        return next.run(req).await;
    }
    let address = PeerAddress::of(req.extensions());
    // The token is keyed by its hash (never kept as sent), computed only
    // when the limit is on: this runs on every request.
    let token = match limits.enabled(Limit::RequestByToken) {
        true => super::auth::bearer(req.headers()).ok().map(crate::tokens::hash),
        false => None,
    };
    let taken = limits
        .take(Limit::RequestByAddress, &address.key())
        .and_then(|()| token.map_or(Ok(()), |t| limits.take(Limit::RequestByToken, &t)));
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
            assert!(limits.take(Limit::Chat, "m1").is_ok());
        }
        let refused = limits.take(Limit::Chat, "m1").unwrap_err();
        assert_eq!(refused.status, StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(refused.retry_after, Some(20), "one message refills in 20 s");
        assert!(
            limits.take(Limit::Chat, "m2").is_ok(),
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
}
