use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use serde::{Deserialize, Serialize};

use std::sync::Arc;

use crate::config::{Config, Registration};
use crate::ids::PlayerId;
use crate::runtime::{PlayerProfile, PlayerRating, Runtime};
use crate::server::auth::{Caller, is_admin};
use crate::server::client::ClientAddress;
use crate::server::error::ApiError;
use crate::server::extract::{ApiJson, IdPath};
use crate::server::limits::{Limit, RateLimits};
use crate::server::views::{self, MatchSummary, PlayerView};
use crate::store::Db;
use crate::tokens;

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewPlayer {
    /// A code from the club's admin, when registration is by invite.
    #[schema(max_length = 128, pattern = r"^[^\u0000]*$")]
    #[serde(default)]
    invite: Option<String>,
    #[schema(
        min_length = 1,
        max_length = 64,
        pattern = r"^[^\u0000-\u001f\u007f-\u009f]*[^\s\u0000-\u001f\u007f-\u009f][^\u0000-\u001f\u007f-\u009f]*$"
    )]
    name: String,
}

/// A new player; the response carries its bearer token, shown only this once.
#[derive(Serialize, utoipa::ToSchema)]
pub struct CreatedPlayer {
    #[serde(flatten)]
    player: PlayerView,
    token: String,
}

/// A new player. Who may create one is the club's `limits.registration`:
/// anyone (at most `registrations_per_hour` from one address), anyone with
/// an invite code (`invite`), or only the admin.
#[utoipa::path(post, path = "/api/players", tag = "players", request_body = NewPlayer, responses((status = 201, description = "the player and its token, shown once", body = CreatedPlayer), (status = "4XX", description = "a client error, with a stable code: invite_required, invalid_invite, registration_closed, rate_limited", body = crate::server::ErrorBody)))]
pub async fn create(
    State(runtime): State<Runtime>,
    State(db): State<Db>,
    State(config): State<Arc<Config>>,
    State(limits): State<Arc<RateLimits>>,
    headers: HeaderMap,
    address: ClientAddress,
    ApiJson(body): ApiJson<NewPlayer>,
) -> Result<(StatusCode, Json<CreatedPlayer>), ApiError> {
    if body.invite.as_ref().is_some_and(|c| c.chars().count() > 128) {
        let message = "an invite code is at most 128 characters";
        return Err(ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid_body", message));
    }
    // A name that cannot be one is refused before an invite is spent.
    Runtime::check_name(&body.name)?;
    let door = Door {
        db: &db,
        config: &config,
        limits: &limits,
    };
    let invite = door.admit(&headers, &address, body.invite.as_deref()).await?;
    let (player, token) = match runtime.create_player(&body.name).await {
        Ok(created) => created,
        Err(e) => {
            if let Some(code_hash) = &invite {
                db.release_invite(code_hash).await?;
            }
            return Err(e.into());
        }
    };
    if let Some(code_hash) = invite {
        db.invite_used_by(&code_hash, &player.id.to_string()).await?;
    }
    Ok((
        StatusCode::CREATED,
        Json(CreatedPlayer {
            player: player.into(),
            token,
        }),
    ))
}

/// The club's door: who may register, by its registration mode.
struct Door<'a> {
    db: &'a Db,
    config: &'a Config,
    limits: &'a RateLimits,
}

impl Door<'_> {
    /// Whether this request may create a player; the hash of the invite it
    /// used, if any. The admin may always.
    async fn admit(
        &self,
        headers: &HeaderMap,
        address: &ClientAddress,
        invite: Option<&str>,
    ) -> Result<Option<String>, ApiError> {
        if is_admin(headers, self.config) {
            return Ok(None);
        }
        let forbidden = |code, message: &str| ApiError::new(StatusCode::FORBIDDEN, code, message);
        match self.config.limits.registration {
            Registration::Open => {
                self.limits.take(Limit::Registration, &address.key())?;
                Ok(None)
            }
            Registration::Invite => {
                let code = invite.filter(|c| !c.trim().is_empty()).ok_or_else(|| {
                    forbidden(
                        "invite_required",
                        "this club admits players by invite: ask its admin for a code",
                    )
                })?;
                let code_hash = tokens::hash(code.trim());
                match self.db.take_invite(&code_hash).await? {
                    true => Ok(Some(code_hash)),
                    false => Err(forbidden(
                        "invalid_invite",
                        "that invite code is unknown, used or expired",
                    )),
                }
            }
            Registration::Admin => Err(forbidden(
                "registration_closed",
                "players here are created by the club's admin: ask them for an account",
            )),
        }
    }
}

#[utoipa::path(get, path = "/api/players/{id}", tag = "players", security(("bearer" = [])), params(("id" = uuid::Uuid, Path, description = "player id")), responses((status = 200, body = PlayerProfile), (status = "4XX", description = "a client error, with a stable code", body = crate::server::ErrorBody)))]
pub async fn get(
    State(runtime): State<Runtime>,
    caller: Caller,
    IdPath(id): IdPath<PlayerId>,
) -> Result<Json<PlayerProfile>, ApiError> {
    let id = caller.owned_player(&runtime, id).await?;
    Ok(Json(runtime.player_profile(id).await?))
}

/// The caller's own matches, newest first (bearer token).
#[utoipa::path(get, path = "/api/players/{id}/matches", tag = "players", security(("bearer" = [])), params(("id" = uuid::Uuid, Path, description = "player id")), responses((status = 200, body = Vec<MatchSummary>), (status = "4XX", description = "a client error, with a stable code", body = crate::server::ErrorBody)))]
pub async fn matches(
    State(runtime): State<Runtime>,
    State(db): State<Db>,
    caller: Caller,
    IdPath(id): IdPath<PlayerId>,
) -> Result<Json<Vec<MatchSummary>>, ApiError> {
    let id = caller.owned_player(&runtime, id).await?;
    let mut matches: Vec<MatchSummary> = views::all(db.matches_of(id, 200).await?);
    let on_lichess: std::collections::HashMap<_, _> = db.lichess_games_of_player(id).await?.into_iter().collect();
    if !on_lichess.is_empty() {
        let base = runtime.shared().config.lichess.url.trim_end_matches('/').to_string();
        for m in &mut matches {
            m.lichess_url = on_lichess.get(&m.id).map(|game| format!("{base}/{game}"));
        }
    }
    Ok(Json(matches))
}

/// The caller's rating (Glicko-2, from their rated games: from the standard
/// start, to a result, the persona at its own strength): now, its progress,
/// the history after each rated game, and which personas promise a fair
/// game (expected score 0.3 to 0.7) and why.
#[utoipa::path(get, path = "/api/players/{id}/rating", tag = "players", security(("bearer" = [])), params(("id" = uuid::Uuid, Path, description = "player id")), responses((status = 200, body = PlayerRating), (status = "4XX", description = "a client error, with a stable code", body = crate::server::ErrorBody)))]
pub async fn rating(
    State(runtime): State<Runtime>,
    caller: Caller,
    IdPath(id): IdPath<PlayerId>,
) -> Result<Json<PlayerRating>, ApiError> {
    let id = caller.owned_player(&runtime, id).await?;
    Ok(Json(runtime.player_rating(id).await?))
}
