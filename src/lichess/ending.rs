//! How a Lichess game ended, as the match records it.

use shakmaty::Color;

use super::wire::{self, StatusName};
use crate::chess::GameEnd;

/// The ending Lichess reports, when the board did not already tell it.
pub fn game_end(status: StatusName, winner: Option<wire::Color>) -> Option<GameEnd> {
    let winner = winner.map(|w| match w {
        wire::Color::White => Color::White,
        wire::Color::Black => Color::Black,
    });
    Some(match (status, winner) {
        (StatusName::Created | StatusName::Started, _) => return None,
        (StatusName::Mate, Some(winner)) => GameEnd::Checkmate { winner },
        (StatusName::Stalemate, _) => GameEnd::Stalemate,
        (StatusName::Timeout | StatusName::Outoftime, winner) => GameEnd::Timeout { winner },
        (StatusName::Draw, _) => GameEnd::DrawAgreed,
        (StatusName::InsufficientMaterialClaim, _) => GameEnd::InsufficientMaterial,
        // A game aborted before it began counts for nobody.
        (StatusName::Aborted | StatusName::NoStart, _) => GameEnd::Abandoned,
        (_, Some(winner)) => GameEnd::Resignation { winner },
        (_, None) => GameEnd::Abandoned,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lichess_statuses_map_to_endings() {
        let w = Some(wire::Color::White);
        let b = Some(wire::Color::Black);
        assert_eq!(game_end(StatusName::Started, None), None);
        assert_eq!(
            game_end(StatusName::Resign, b),
            Some(GameEnd::Resignation { winner: Color::Black })
        );
        assert_eq!(
            game_end(StatusName::Mate, w),
            Some(GameEnd::Checkmate { winner: Color::White })
        );
        assert_eq!(
            game_end(StatusName::Outoftime, w),
            Some(GameEnd::Timeout {
                winner: Some(Color::White)
            })
        );
        assert_eq!(
            game_end(StatusName::Outoftime, None),
            Some(GameEnd::Timeout { winner: None })
        );
        assert_eq!(game_end(StatusName::Draw, None), Some(GameEnd::DrawAgreed));
        assert_eq!(game_end(StatusName::Aborted, None), Some(GameEnd::Abandoned));
        assert_eq!(
            game_end(StatusName::Cheat, w),
            Some(GameEnd::Resignation { winner: Color::White })
        );
    }
}
