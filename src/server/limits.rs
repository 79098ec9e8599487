//! Rate limits: a token bucket per key (a match for chat, a player for memory
//! writes), `per_minute` deep and refilled continuously. Over the limit is a
//! 429 with the wait in the message.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Instant;

use axum::http::StatusCode;

use super::error::ApiError;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Limit {
    Chat,
    MemoryWrite,
}

/// Buckets kept at most; full ones are dropped first when there are more.
const MAX_BUCKETS: usize = 100_000;

pub struct RateLimits {
    chat_per_minute: u32,
    memory_per_minute: u32,
    buckets: Mutex<HashMap<(Limit, String), (f64, Instant)>>,
}

impl RateLimits {
    pub fn new(chat_per_minute: u32, memory_per_minute: u32) -> Self {
        RateLimits {
            chat_per_minute,
            memory_per_minute,
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Takes one token for `key`, or says how long to wait.
    pub fn take(&self, limit: Limit, key: &str) -> Result<(), ApiError> {
        let per_minute = f64::from(match limit {
            Limit::Chat => self.chat_per_minute,
            Limit::MemoryWrite => self.memory_per_minute,
        });
        if per_minute <= 0.0 {
            return Ok(());
        }
        let per_second = per_minute / 60.0;
        let now = Instant::now();
        let Ok(mut buckets) = self.buckets.lock() else {
            return Ok(());
        };
        if buckets.len() >= MAX_BUCKETS {
            buckets.retain(|_, (tokens, at)| *tokens + at.elapsed().as_secs_f64() * per_second < per_minute);
        }
        let (tokens, at) = buckets.entry((limit, key.to_string())).or_insert((per_minute, now));
        *tokens = (*tokens + now.duration_since(*at).as_secs_f64() * per_second).min(per_minute);
        *at = now;
        if *tokens >= 1.0 {
            *tokens -= 1.0;
            return Ok(());
        }
        let wait = ((1.0 - *tokens) / per_second).ceil();
        let what = match limit {
            Limit::Chat => "messages",
            Limit::MemoryWrite => "memory changes",
        };
        Err(ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "rate_limited",
            format!("too many {what}: at most {per_minute} a minute; try again in {wait} s"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bucket_allows_its_depth_then_refuses_per_key() {
        let limits = RateLimits::new(3, 0);
        for _ in 0..3 {
            assert!(limits.take(Limit::Chat, "m1").is_ok());
        }
        let refused = limits.take(Limit::Chat, "m1").unwrap_err();
        assert_eq!(refused.status, StatusCode::TOO_MANY_REQUESTS);
        assert!(
            limits.take(Limit::Chat, "m2").is_ok(),
            "another match has its own bucket"
        );
        assert!(limits.take(Limit::MemoryWrite, "p1").is_ok(), "0 means unlimited");
    }
}
