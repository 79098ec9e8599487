//! Who is calling: a player by bearer token, or the admin. Memory endpoints
//! serve a player only their own memories; anyone else gets 404, so ids of
//! other players' memories are not even confirmed to exist.

use axum::extract::FromRequestParts;
use axum::http::StatusCode;
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;

use super::AppState;
use super::error::ApiError;
use crate::ids::PlayerId;
use crate::tokens;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Caller {
    Player(PlayerId),
    Admin,
}

impl Caller {
    /// Ok if the caller may act on `owner`'s memories; 404 otherwise.
    pub fn may_access(self, owner: Option<PlayerId>, what: &str) -> Result<(), ApiError> {
        match (self, owner) {
            (Caller::Admin, _) => Ok(()),
            (Caller::Player(me), Some(owner)) if me == owner => Ok(()),
            _ => Err(ApiError::not_found(what)),
        }
    }
}

fn unauthorized(message: &str) -> ApiError {
    ApiError::new(StatusCode::UNAUTHORIZED, "unauthorized", message)
}

impl FromRequestParts<AppState> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, app: &AppState) -> Result<Self, ApiError> {
        let header = parts
            .headers
            .get(AUTHORIZATION)
            .ok_or_else(|| unauthorized("send Authorization: Bearer <token>"))?;
        let token = header
            .to_str()
            .ok()
            .and_then(|h| h.strip_prefix("Bearer "))
            .map(str::trim)
            .filter(|t| !t.is_empty() && t.len() <= 256)
            .ok_or_else(|| unauthorized("the Authorization header must be 'Bearer <token>'"))?;
        let svc = app.runtime.services();
        if let Some(admin) = &svc.config.admin_token
            && tokens::same(token, admin)
        {
            return Ok(Caller::Admin);
        }
        // Looked up by hash: the database never sees the token itself.
        match svc.db.player_by_token_hash(&tokens::hash(token)).await? {
            Some(player) => Ok(Caller::Player(player.id)),
            None => Err(unauthorized("unknown token")),
        }
    }
}
