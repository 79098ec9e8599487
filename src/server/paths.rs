//! Paths that name one thing. A path with a `.` or `..` segment, an empty
//! segment, a percent-encoded dot, slash or NUL, a backslash or a `;` is
//! refused (400 `bad_path`) before anything routes it: no route here has
//! one, and each is a way to make a path mean one thing to kibitz and
//! another to the next program that reads it (an HTTP client relaying it to
//! another node folds `..` away and reads `\` as `/`; a proxy may decode
//! `%2e` or cut at `;`). An encoded backslash or semicolon stays inside its
//! segment's value for every program on the way, so a persona id may hold
//! one (and is then simply not found).

use axum::extract::Request;
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::error::ApiError;

/// The middleware: odd paths never reach a route, a relay or a file.
pub async fn refuse_odd_paths(req: Request, next: Next) -> Response {
    match odd_path(req.uri().path()) {
        Some(why) => ApiError::new(StatusCode::BAD_REQUEST, "bad_path", format!("the path {why}")).into_response(),
        None => next.run(req).await,
    }
}

/// Why `path` (as sent, still percent-encoded) is refused, if it is.
pub fn odd_path(path: &str) -> Option<&'static str> {
    let Some(rest) = path.strip_prefix('/') else {
        return Some("must start with /");
    };
    let lower = path.to_ascii_lowercase();
    if ["%2e", "%2f", "%00"].iter().any(|encoded| lower.contains(encoded)) {
        return Some("may not percent-encode a dot, a slash or NUL");
    }
    if path.contains(['\\', ';']) {
        return Some("may not hold a backslash or a semicolon");
    }
    // A trailing slash leaves one empty segment at the end, which names
    // nothing new; an empty one inside (`//`) is refused.
    let segments = rest.strip_suffix('/').unwrap_or(rest);
    if path.len() > 1 && segments.split('/').any(|s| s.is_empty() || s == "." || s == "..") {
        return Some("may not hold empty, `.` or `..` segments");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn traversal_in_any_spelling_is_refused() {
        let m = "/api/matches/0b6a3c3e-6f4e-4f7b-9a57-2f8b8d3f6a01";
        for odd in [
            format!("{m}/../../../internal/forget"),
            format!("{m}/%2e%2e/%2e%2e/%2e%2e/internal/forget"),
            format!("{m}/%2E%2e%2F%2e%2e%2Finternal/forget"),
            format!("{m}/.%2e/internal/forget"),
            format!("{m}//moves"),
            format!("{m}/./moves"),
            format!("{m}/moves;/../../internal/forget"),
            format!("{m}/..\\..\\internal"),
            format!("{m}%2fmoves"),
            "//api/health".to_string(),
            "/..".to_string(),
            "api/health".to_string(),
        ] {
            assert!(odd_path(&odd).is_some(), "{odd} passed");
        }
    }

    #[test]
    fn every_real_path_passes() {
        let m = "/api/matches/0b6a3c3e-6f4e-4f7b-9a57-2f8b8d3f6a01";
        for fine in [
            "/".to_string(),
            "/api/health".to_string(),
            format!("{m}/moves"),
            format!("{m}/ws"),
            "/assets/index-3f2a.js".to_string(),
            "/api/personas/".to_string(),
            "/api/memories/search".to_string(),
            "/history".to_string(),
            "/api/personas/%5C%3Bq".to_string(),
        ] {
            assert_eq!(odd_path(&fine), None, "{fine}");
        }
    }
}
