//! The Lichess API's messages kibitz reads, as its OpenAPI specification
//! (lichess-org/api, `doc/specs`) defines them: the account event stream's
//! events, a bot game's stream, challenges and the sign-in's token. Fields
//! kibitz does not use are left out (serde skips them); the tests check the
//! fake server's every message against the specification's schemas, and
//! these types against those messages.

use serde::{Deserialize, Serialize};

/// A line of `GET /api/stream/event`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum AccountEvent {
    GameStart { game: GameInfo },
    GameFinish { game: GameInfo },
    Challenge { challenge: Challenge },
    ChallengeCanceled { challenge: Challenge },
    ChallengeDeclined { challenge: Challenge },
}

/// `GameEventInfo`: a game of the account's, started or finished.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GameInfo {
    pub game_id: String,
    #[serde(default)]
    pub color: Option<Color>,
    #[serde(default)]
    pub winner: Option<Color>,
    #[serde(default)]
    pub status: Option<GameStatus>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameStatus {
    pub name: StatusName,
}

/// `ChallengeJson`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Challenge {
    pub id: String,
    pub challenger: ChallengeUser,
    #[serde(default)]
    pub dest_user: Option<ChallengeUser>,
    pub variant: Variant,
    pub rated: bool,
    pub speed: String,
    pub time_control: TimeControl,
    #[serde(default)]
    pub initial_fen: Option<String>,
    /// "in" for one made to the account, "out" for one it made.
    #[serde(default)]
    pub direction: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChallengeUser {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub rating: Option<u32>,
    #[serde(default)]
    pub title: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Variant {
    pub key: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum TimeControl {
    /// `limit` and `increment` in seconds.
    Clock {
        limit: u32,
        increment: u32,
    },
    #[serde(rename_all = "camelCase")]
    Correspondence {
        #[serde(default)]
        days_per_turn: Option<u32>,
    },
    Unlimited,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Color {
    White,
    Black,
}

/// A line of `GET /api/bot/game/stream/{gameId}`; the first is `gameFull`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum GameEvent {
    GameFull(Box<GameFull>),
    GameState(GameState),
    ChatLine(ChatLine),
    #[serde(rename_all = "camelCase")]
    OpponentGone {
        gone: bool,
        #[serde(default)]
        claim_win_in_seconds: Option<u32>,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GameFull {
    pub id: String,
    pub variant: Variant,
    #[serde(default)]
    pub clock: Option<GameClock>,
    pub rated: bool,
    pub white: GamePlayer,
    pub black: GamePlayer,
    /// "startpos" or a FEN.
    pub initial_fen: String,
    pub state: GameState,
}

/// Milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct GameClock {
    pub initial: u64,
    pub increment: u64,
}

/// `GameEventPlayer`: a player of a game (an AI opponent has no id).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GamePlayer {
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub rating: Option<u32>,
    #[serde(default)]
    pub ai_level: Option<u32>,
}

/// `GameStateEvent`: the moves so far (UCI, space-separated), the clocks
/// (ms), and what either side proposes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameState {
    pub moves: String,
    pub wtime: u64,
    pub btime: u64,
    pub winc: u64,
    pub binc: u64,
    pub status: StatusName,
    #[serde(default)]
    pub winner: Option<Color>,
    #[serde(default)]
    pub wdraw: bool,
    #[serde(default)]
    pub bdraw: bool,
    #[serde(default)]
    pub wtakeback: bool,
    #[serde(default)]
    pub btakeback: bool,
}

impl GameState {
    pub fn moves(&self) -> Vec<&str> {
        self.moves.split_whitespace().collect()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum StatusName {
    Created,
    Started,
    Aborted,
    Mate,
    Resign,
    Stalemate,
    Timeout,
    Draw,
    Outoftime,
    Cheat,
    NoStart,
    UnknownFinish,
    InsufficientMaterialClaim,
    VariantEnd,
}

impl StatusName {
    pub fn is_over(self) -> bool {
        !matches!(self, StatusName::Created | StatusName::Started)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatLine {
    pub room: Room,
    pub username: String,
    pub text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Room {
    Player,
    Spectator,
}

impl Room {
    pub fn as_str(self) -> &'static str {
        match self {
            Room::Player => "player",
            Room::Spectator => "spectator",
        }
    }
}

/// `GET /api/bot/game/{gameId}/chat`: the game's chat so far.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatEntry {
    pub text: String,
    pub user: String,
}

/// Why a challenge is declined: the reasons `POST
/// /api/challenge/{id}/decline` takes (Lichess translates them for the
/// challenger).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum DeclineReason {
    Generic,
    Later,
    TooFast,
    TooSlow,
    TimeControl,
    Rated,
    Casual,
    Standard,
    Variant,
    NoBot,
    OnlyBot,
}

impl DeclineReason {
    pub fn as_str(self) -> &'static str {
        match self {
            DeclineReason::Generic => "generic",
            DeclineReason::Later => "later",
            DeclineReason::TooFast => "tooFast",
            DeclineReason::TooSlow => "tooSlow",
            DeclineReason::TimeControl => "timeControl",
            DeclineReason::Rated => "rated",
            DeclineReason::Casual => "casual",
            DeclineReason::Standard => "standard",
            DeclineReason::Variant => "variant",
            DeclineReason::NoBot => "noBot",
            DeclineReason::OnlyBot => "onlyBot",
        }
    }
}

/// `GET /api/account`: who a token belongs to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Account {
    pub id: String,
    pub username: String,
    #[serde(default)]
    pub title: Option<String>,
}

/// `POST /api/token`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AccessToken {
    pub token_type: String,
    pub access_token: String,
    pub expires_in: i64,
}
