use crate::chess::MoveError;
use crate::store::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum RuntimeError {
    #[error("{0} not found")]
    NotFound(String),
    #[error("unknown persona '{0}'; GET /api/personas lists them")]
    UnknownPersona(String),
    #[error("{0}")]
    InvalidFen(String),
    #[error("utc_offset_minutes {0} is outside -720..=840")]
    BadUtcOffset(i32),
    #[error(transparent)]
    BadMove(#[from] MoveError),
    #[error("it is not your turn")]
    NotYourTurn,
    #[error("the game is over")]
    GameOver,
    #[error("there is no draw offer to answer")]
    NoDrawOffer,
    #[error("the persona has not made a move yet: nothing to explain")]
    NothingToExplain,
    #[error("you have not made a move yet: nothing to take back")]
    NothingToTakeBack,
    #[error("no hint: {0}")]
    NoHint(String),
    #[error("no more hints this game: {per_game} is all this persona gives")]
    NoHintsLeft { per_game: u32 },
    #[error("the review is shown once the match is over")]
    NotOver,
    #[error("no puzzle was offered in this game, or it is answered")]
    NoPuzzle,
    #[error(transparent)]
    Puzzle(#[from] crate::puzzles::PuzzleError),
    #[error("text must not be empty")]
    EmptyText,
    /// PostgreSQL cannot store NUL in text; no client has a reason to send it.
    #[error("text may not contain NUL characters")]
    NulInText,
    /// Names are one line of printable text.
    #[error("a name may not contain control characters (found U+{:04X}): use letters, digits, spaces and punctuation", u32::from(*.0))]
    ControlInName(char),
    #[error("text is {len} characters; the limit is {max}")]
    TextTooLong { len: usize, max: usize },
    #[error("the match is busy restarting; try again")]
    Unavailable,
    /// Another node of the club runs this match (a request reached this
    /// one while the match changed hands).
    #[error("node {node} runs this match; try again in {retry_after_secs} s")]
    HeldElsewhere { node: String, retry_after_secs: u64 },
    #[error("you have {cap} unfinished matches, the most one player may hold: finish or resign one first")]
    TooManyMatches { cap: u32 },
    #[error("the server is busy (its games are {wait_ms} ms behind); try again in {retry_after_secs} s")]
    Busy { wait_ms: u64, retry_after_secs: u64 },
    #[error(transparent)]
    Store(#[from] StoreError),
}
