//! Signing in with Lichess (OAuth2 authorization code with PKCE, as the
//! Lichess API documents it: S256 only, no client secret, no registration):
//! the pending sign-ins a server keeps between sending the browser to
//! Lichess and its coming back, and the address it is sent to.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use rand::RngCore;
use sha2::{Digest, Sha256};

/// The client id Lichess is given (any string: Lichess has no registry).
pub const CLIENT_ID: &str = "kibitz";
/// A browser that has not come back by then must start again.
const PENDING_FOR: Duration = Duration::from_secs(600);
/// Pending sign-ins kept at most; past it the oldest go (a flood of starts
/// costs memory no further).
const MOST_PENDING: usize = 10_000;

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

/// Sign-ins started and not finished: state -> (verifier, when).
#[derive(Default)]
pub struct SignIns {
    pending: Mutex<HashMap<String, (String, Instant)>>,
}

impl SignIns {
    /// A new sign-in: its state and the verifier's challenge.
    pub fn start(&self) -> (String, String) {
        let (state, verifier) = (random_token(), random_token());
        let challenge = challenge(&verifier);
        let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        pending.retain(|_, (_, at)| now.duration_since(*at) < PENDING_FOR);
        if pending.len() >= MOST_PENDING
            && let Some(oldest) = pending.iter().min_by_key(|(_, (_, at))| *at).map(|(s, _)| s.clone())
        {
            pending.remove(&oldest);
        }
        pending.insert(state.clone(), (verifier, now));
        (state, challenge)
    }

    /// The verifier of a sign-in this server started, once: a state unknown,
    /// used or too old gives none.
    pub fn finish(&self, state: &str) -> Option<String> {
        let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        let (verifier, at) = pending.remove(state)?;
        (at.elapsed() < PENDING_FOR).then_some(verifier)
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
    fn a_sign_in_finishes_once() {
        let sign_ins = SignIns::default();
        let (state, challenge_sent) = sign_ins.start();
        let verifier = sign_ins.finish(&state).expect("pending");
        assert_eq!(challenge(&verifier), challenge_sent);
        assert_eq!(sign_ins.finish(&state), None, "used");
        assert_eq!(sign_ins.finish("forged"), None);
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
