//! Who is calling: a player by bearer token, or the admin. A player reaches
//! only their own player record, matches and memories; anything else answers
//! 404, so ids of other players' things are not even confirmed to exist.
//!
//! The token comes in `Authorization: Bearer <token>`. Browsers cannot set
//! headers on a WebSocket, so there it may come as the subprotocol
//! `bearer.<token>` beside `kibitz` (never in the URL, which proxies log).

use std::sync::Arc;

use axum::extract::{FromRef, FromRequestParts};
use axum::http::header::{AUTHORIZATION, SEC_WEBSOCKET_PROTOCOL};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode};

use super::error::ApiError;
use crate::config::Config;
use crate::ids::{MatchId, PlayerId};
use crate::runtime::Runtime;
use crate::store::Db;
use crate::tokens;

/// The subprotocol a WebSocket client names beside its `bearer.` entry.
pub const WS_PROTOCOL: &str = "kibitz";
const WS_BEARER_PREFIX: &str = "bearer.";
const MAX_TOKEN_LEN: usize = 256;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Caller {
    Player(PlayerId),
    Admin,
}

impl Caller {
    /// Ok if the caller may act on `owner`'s things; 404 otherwise.
    pub fn may_access(self, owner: Option<PlayerId>, what: &str) -> Result<(), ApiError> {
        match (self, owner) {
            (Caller::Admin, _) => Ok(()),
            (Caller::Player(me), Some(owner)) if me == owner => Ok(()),
            _ => Err(ApiError::not_found(what)),
        }
    }

    /// The match named by `id`, if the caller may see it.
    pub async fn owned_match(self, runtime: &Runtime, id: MatchId) -> Result<MatchId, ApiError> {
        let owner = runtime.owner(id).await?;
        self.may_access(Some(owner), "match")?;
        Ok(id)
    }

    /// The match named by `id`, if the caller may play it here: a match
    /// played on Lichess is played there (its moves and words go through
    /// the persona's BOT account), so the club's page only shows it.
    pub async fn playable_match(
        self,
        runtime: &Runtime,
        db: &crate::store::Db,
        id: MatchId,
    ) -> Result<MatchId, ApiError> {
        let id = self.owned_match(runtime, id).await?;
        if let Some(game) = db.lichess_game_of_match(id).await? {
            let message = format!("this match is played on Lichess (game {game}): play it there");
            return Err(ApiError::new(StatusCode::CONFLICT, "played_on_lichess", message));
        }
        Ok(id)
    }

    /// The player named by `id`, if it is the caller (or the caller is admin).
    pub async fn owned_player(self, runtime: &Runtime, id: PlayerId) -> Result<PlayerId, ApiError> {
        self.may_access(Some(id), "player")?;
        runtime.player(id).await?;
        Ok(id)
    }
}

fn unauthorized(message: &str) -> ApiError {
    ApiError::new(StatusCode::UNAUTHORIZED, "unauthorized", message)
}

/// Whether the request carries the admin's token.
pub fn is_admin(headers: &HeaderMap, config: &Config) -> bool {
    let admin = config.admin_token.as_deref();
    matches!((bearer(headers), admin), (Ok(token), Some(admin)) if tokens::same(token, admin))
}

/// The bearer token of a request: the Authorization header, else a
/// WebSocket subprotocol entry.
pub(super) fn bearer(headers: &HeaderMap) -> Result<&str, ApiError> {
    let token = if let Some(header) = headers.get(AUTHORIZATION) {
        header
            .to_str()
            .ok()
            .and_then(|h| h.strip_prefix("Bearer "))
            .ok_or_else(|| unauthorized("the Authorization header must be 'Bearer <token>'"))?
    } else {
        ws_bearer(headers).ok_or_else(|| unauthorized("send Authorization: Bearer <token>"))?
    };
    let token = token.trim();
    if token.is_empty() || token.len() > MAX_TOKEN_LEN {
        return Err(unauthorized("the bearer token is empty or too long"));
    }
    Ok(token)
}

fn ws_bearer(headers: &HeaderMap) -> Option<&str> {
    headers
        .get_all(SEC_WEBSOCKET_PROTOCOL)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .find_map(|p| p.trim().strip_prefix(WS_BEARER_PREFIX))
}

impl<S> FromRequestParts<S> for Caller
where
    S: Send + Sync,
    Db: FromRef<S>,
    Arc<Config>: FromRef<S>,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let token = bearer(&parts.headers)?;
        if let Some(admin) = &Arc::<Config>::from_ref(state).admin_token
            && tokens::same(token, admin)
        {
            return Ok(Caller::Admin);
        }
        // Looked up by hash: the database never sees the token itself, and a
        // hash lookup takes the same time whatever prefix the guess shares.
        match Db::from_ref(state).player_by_token_hash(&tokens::hash(token)).await? {
            Some(player) => Ok(Caller::Player(player.id)),
            None => Err(unauthorized("unknown token")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(pairs: &[(axum::http::HeaderName, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(k.clone(), HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn the_token_comes_from_the_header_or_the_websocket_protocol() {
        assert_eq!(bearer(&headers(&[(AUTHORIZATION, "Bearer abc")])).unwrap(), "abc");
        let ws = headers(&[(SEC_WEBSOCKET_PROTOCOL, "kibitz, bearer.def")]);
        assert_eq!(bearer(&ws).unwrap(), "def");
        assert_eq!(bearer(&headers(&[])).unwrap_err().code, "unauthorized");
        assert_eq!(
            bearer(&headers(&[(AUTHORIZATION, "Basic x")])).unwrap_err().code,
            "unauthorized"
        );
        let long = format!("Bearer {}", "a".repeat(300));
        assert_eq!(
            bearer(&headers(&[(AUTHORIZATION, &long)])).unwrap_err().code,
            "unauthorized"
        );
        let kibitz_only = headers(&[(SEC_WEBSOCKET_PROTOCOL, "kibitz")]);
        assert!(bearer(&kibitz_only).is_err());
    }
}
