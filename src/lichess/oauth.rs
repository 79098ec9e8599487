//! Signing in with Lichess (OAuth2 authorization code with PKCE, as the
//! Lichess API documents it: S256 only, no client secret, no registration):
//! the sign-in a browser carries between being sent to Lichess and coming
//! back, and the address it is sent to. The sign-in (its state, its PKCE
//! verifier and when it began) lives in the browser's HttpOnly cookie, not
//! in one server's memory, so the return may reach any node of the club.

use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chrono::{DateTime, Utc};
use rand::RngCore;
use sha2::{Digest, Sha256};

/// The client id Lichess is given (any string: Lichess has no registry).
pub const CLIENT_ID: &str = "kibitz";
/// A browser that has not come back by then must start again.
pub const PENDING_FOR: Duration = Duration::from_secs(600);

/// 32 random bytes, URL-safe base64: a PKCE verifier or a state.
fn random_token() -> String {
    let mut bytes = [0u8; 32];
    rand::thread_rng().fill_bytes(&mut bytes);
    URL_SAFE_NO_PAD.encode(bytes)
}

/// The verifier's S256 challenge.
pub fn challenge(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// One sign-in under way. The verifier never leaves the browser's cookie
/// and this server (Lichess sees only its challenge): a code taken on its
/// way back is worth nothing without it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignIn {
    pub state: String,
    pub verifier: String,
    began: i64,
}

impl SignIn {
    pub fn start(now: DateTime<Utc>) -> SignIn {
        SignIn {
            state: random_token(),
            verifier: random_token(),
            began: now.timestamp(),
        }
    }

    /// What the cookie holds (base64url tokens and a number, joined by dots).
    pub fn cookie_value(&self) -> String {
        format!("{}.{}.{}", self.state, self.verifier, self.began)
    }

    /// The sign-in a cookie holds, if it is whole and still fresh at `now`.
    pub fn from_cookie(value: &str, now: DateTime<Utc>) -> Option<SignIn> {
        let mut parts = value.split('.');
        let (state, verifier, began) = (parts.next()?, parts.next()?, parts.next()?.parse::<i64>().ok()?);
        let age = now.timestamp() - began;
        let fresh = (0..PENDING_FOR.as_secs() as i64).contains(&age);
        let whole = parts.next().is_none() && !state.is_empty() && !verifier.is_empty();
        (fresh && whole).then(|| SignIn {
            state: state.to_string(),
            verifier: verifier.to_string(),
            began,
        })
    }
}

/// Where the browser goes to sign in on the Lichess at `base`.
pub fn authorize_url(base: &str, redirect_uri: &str, state: &str, challenge: &str) -> String {
    let query = [
        ("response_type", "code"),
        ("client_id", CLIENT_ID),
        ("redirect_uri", redirect_uri),
        ("code_challenge_method", "S256"),
        ("code_challenge", challenge),
        ("state", state),
    ];
    let query: Vec<String> = query.iter().map(|(k, v)| format!("{k}={}", encode(v))).collect();
    format!("{}/oauth?{}", base.trim_end_matches('/'), query.join("&"))
}

/// Percent-encoding of a query value (unreserved characters kept).
fn encode(value: &str) -> String {
    value
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_challenge_is_rfc_7636s_s256() {
        // RFC 7636, appendix B.
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
        assert_eq!(challenge(verifier), "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
    }

    #[test]
    fn a_sign_in_reads_back_from_its_cookie_while_fresh_and_whole() {
        let now = Utc::now();
        let sign_in = SignIn::start(now);
        let value = sign_in.cookie_value();
        assert_eq!(SignIn::from_cookie(&value, now), Some(sign_in.clone()));
        let late = now + chrono::Duration::seconds(PENDING_FOR.as_secs() as i64);
        assert_eq!(SignIn::from_cookie(&value, late), None, "too old");
        let early = now - chrono::Duration::seconds(5);
        assert_eq!(SignIn::from_cookie(&value, early), None, "from the future");
        assert_eq!(SignIn::from_cookie(&format!("{value}.x"), now), None);
        assert_eq!(SignIn::from_cookie(&format!(".{}", sign_in.began), now), None);
        assert_eq!(SignIn::from_cookie("forged", now), None);
        assert_ne!(SignIn::start(now).state, sign_in.state, "each sign-in its own");
    }

    #[test]
    fn the_authorize_url_carries_every_parameter_encoded() {
        let url = authorize_url(
            "https://lichess.org/",
            "http://club.example/api/auth/lichess/callback",
            "s1",
            "c1",
        );
        assert_eq!(
            url,
            "https://lichess.org/oauth?response_type=code&client_id=kibitz&redirect_uri=http%3A%2F%2Fclub.example%2Fapi%2Fauth%2Flichess%2Fcallback&code_challenge_method=S256&code_challenge=c1&state=s1"
        );
    }
}
