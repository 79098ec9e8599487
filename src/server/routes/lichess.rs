//! Signing in with Lichess: a Lichess opponent of a persona reaches what it
//! remembers of them on the club's page. The browser is sent to Lichess's
//! consent page with a PKCE challenge; back here, the code is traded for a
//! token that says who they are, the token is let go, and the player the
//! personas know by that Lichess id gets a new club token (the page keeps
//! it). Nobody else's memories can be reached this way: only the player
//! Lichess vouches for.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Redirect};
use chrono::Utc;
use serde::Deserialize;

use crate::config::Config;
use crate::lichess::oauth::{self, SignIn};
use crate::lichess::{LichessClient, Token};
use crate::server::error::ApiError;
use crate::server::extract::ApiQuery;
use crate::store::Db;

/// Where Lichess sends the browser back to.
fn redirect_uri(config: &Config) -> String {
    let base = match config.lichess.public_url.trim_end_matches('/') {
        "" => format!("http://{}", config.listen),
        url => url.to_string(),
    };
    format!("{base}/api/auth/lichess/callback")
}

fn client(config: &Config) -> LichessClient {
    let wait = Duration::from_secs_f64(config.lichess.rate_limit_wait_secs);
    LichessClient::new(&config.lichess.url, None, wait)
}

/// Off unless some persona plays on Lichess: nobody else could be known there.
fn offered(config: &Config) -> Result<(), ApiError> {
    match config.lichess.accounts.is_empty() {
        true => Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "not_found",
            "no persona of this club plays on Lichess",
        )),
        false => Ok(()),
    }
}

/// The cookie that binds a sign-in to the browser that started it and
/// carries it (`oauth::SignIn`): a return from Lichess in any other browser
/// (a link someone was sent) is refused, so nobody can be signed in as
/// someone else; and any node of the club can finish it.
const STATE_COOKIE: &str = "kibitz_lichess_state";

fn state_cookie(value: &str, max_age: u64, config: &Config) -> String {
    let secure = if config.lichess.public_url.starts_with("https://") {
        "; Secure"
    } else {
        ""
    };
    format!("{STATE_COOKIE}={value}; Path=/api/auth/lichess; Max-Age={max_age}; HttpOnly; SameSite=Lax{secure}")
}

/// This browser's pending sign-in, from its cookie.
fn cookie_value(headers: &HeaderMap) -> Option<&str> {
    let cookies = headers
        .get_all(header::COOKIE)
        .into_iter()
        .filter_map(|v| v.to_str().ok());
    cookies
        .flat_map(|line| line.split(';'))
        .find_map(|pair| pair.trim().strip_prefix(STATE_COOKIE)?.strip_prefix('='))
}

#[utoipa::path(get, path = "/api/auth/lichess", tag = "players", responses((status = 303, description = "to Lichess's sign-in, with a PKCE challenge (and a cookie binding the sign-in to this browser)"), (status = 404, description = "no persona plays on Lichess", body = crate::server::ErrorBody)))]
pub async fn start(State(config): State<Arc<Config>>) -> Result<impl IntoResponse, ApiError> {
    offered(&config)?;
    let sign_in = SignIn::start(Utc::now());
    let challenge = oauth::challenge(&sign_in.verifier);
    let url = oauth::authorize_url(&config.lichess.url, &redirect_uri(&config), &sign_in.state, &challenge);
    let max_age = oauth::PENDING_FOR.as_secs();
    Ok((
        [(
            header::SET_COOKIE,
            state_cookie(&sign_in.cookie_value(), max_age, &config),
        )],
        Redirect::to(&url),
    ))
}

#[derive(Deserialize, utoipa::IntoParams)]
pub struct Callback {
    code: Option<String>,
    state: Option<String>,
    /// Lichess's reason when the person did not agree (`access_denied`).
    error: Option<String>,
}

#[utoipa::path(get, path = "/api/auth/lichess/callback", tag = "players", params(Callback), responses((status = 303, description = "to the page: `#/signed-in/{player}/{token}`, or `#/lichess/{why}` (refused, unknown: the personas never played them)"), (status = 400, description = "a sign-in this browser did not start here, or started too long ago", body = crate::server::ErrorBody), (status = 404, description = "no persona plays on Lichess", body = crate::server::ErrorBody), (status = 502, description = "Lichess did not answer", body = crate::server::ErrorBody)))]
pub async fn callback(
    State(config): State<Arc<Config>>,
    State(db): State<Db>,
    headers: HeaderMap,
    ApiQuery(query): ApiQuery<Callback>,
) -> Result<impl IntoResponse, ApiError> {
    offered(&config)?;
    let forget = [(header::SET_COOKIE, state_cookie("", 0, &config))];
    let sign_in = cookie_value(&headers).and_then(|v| SignIn::from_cookie(v, Utc::now()));
    let verifier = sign_in
        .filter(|s| query.state.as_deref() == Some(s.state.as_str()))
        .map(|s| s.verifier);
    let Some(verifier) = verifier else {
        let message = "this sign-in was not started in this browser, or too long ago: start it again";
        return Err(ApiError::new(StatusCode::BAD_REQUEST, "bad_sign_in", message));
    };
    Ok((forget, finish(&config, &db, query, &verifier).await?))
}

/// The code traded and checked, and the page sent where it belongs.
async fn finish(config: &Config, db: &Db, query: Callback, verifier: &str) -> Result<Redirect, ApiError> {
    let (Some(code), None) = (query.code.as_deref(), query.error.as_deref()) else {
        return Ok(Redirect::to("/#/lichess/refused"));
    };
    let lichess = client(config);
    let unavailable = |e: crate::lichess::LichessError| {
        tracing::warn!("signing in with Lichess failed: {e}");
        ApiError::new(
            StatusCode::BAD_GATEWAY,
            "lichess_unavailable",
            "Lichess did not confirm who you are; try again",
        )
    };
    let token = lichess
        .access_token(code, verifier, &redirect_uri(config), oauth::CLIENT_ID)
        .await
        .map_err(unavailable)?;
    let theirs = lichess.with_token(Token::new(token.access_token));
    let account = theirs.account().await;
    // Their Lichess token is needed no more: let it go, whatever happened.
    if let Err(e) = theirs.revoke().await {
        tracing::info!("the sign-in's Lichess token could not be revoked: {e}");
    }
    let account = account.map_err(unavailable)?;
    let Some(player) = db.player_by_lichess_id(&account.id).await? else {
        return Ok(Redirect::to("/#/lichess/unknown"));
    };
    let token = crate::tokens::new_token();
    db.set_player_token(player.id, &crate::tokens::hash(&token)).await?;
    tracing::info!(player = %player.id, "signed in with Lichess");
    Ok(Redirect::to(&format!("/#/signed-in/{}/{token}", player.id)))
}
