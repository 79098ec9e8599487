//! What a chat line is for: a closed vocabulary of intents, each with
//! example lines a club player might type. The examples are embedded once
//! at start (pinned beside the model) and a line is compared with them;
//! rules (`rules.rs`) decide first where the words are plain.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum Intent {
    Greeting,
    Farewell,
    /// Whether the persona remembers them, or about earlier games.
    AsksMemory,
    /// About the persona: its life, its lore, its style.
    AsksPersona,
    /// About the position or a move: who is better, why a move, a blunder?
    AsksPosition,
    /// Something about themselves: job, family, where or from whom they
    /// learned, how they feel, the time of day.
    SelfDisclosure,
    /// A chess preference: a favourite opening, a style, a time control.
    Preference,
    Compliment,
    TrashTalk,
    /// An apology, or tiredness.
    Apology,
    DrawRequest,
    TakebackRequest,
    Thanks,
    OffTopic,
}

impl Intent {
    pub const ALL: [Intent; 14] = [
        Intent::Greeting,
        Intent::Farewell,
        Intent::AsksMemory,
        Intent::AsksPersona,
        Intent::AsksPosition,
        Intent::SelfDisclosure,
        Intent::Preference,
        Intent::Compliment,
        Intent::TrashTalk,
        Intent::Apology,
        Intent::DrawRequest,
        Intent::TakebackRequest,
        Intent::Thanks,
        Intent::OffTopic,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Intent::Greeting => "greeting",
            Intent::Farewell => "farewell",
            Intent::AsksMemory => "asks_memory",
            Intent::AsksPersona => "asks_persona",
            Intent::AsksPosition => "asks_position",
            Intent::SelfDisclosure => "self_disclosure",
            Intent::Preference => "preference",
            Intent::Compliment => "compliment",
            Intent::TrashTalk => "trash_talk",
            Intent::Apology => "apology",
            Intent::DrawRequest => "draw_request",
            Intent::TakebackRequest => "takeback_request",
            Intent::Thanks => "thanks",
            Intent::OffTopic => "off_topic",
        }
    }

    pub fn parse(s: &str) -> Option<Intent> {
        Intent::ALL.into_iter().find(|i| i.as_str() == s)
    }

    /// Which of two intents in one line it is about: what asks for an
    /// answer first, then what tells something, then the pleasantries
    /// around them ("Hi! I learned chess from my dad." tells a fact).
    pub fn rank(self) -> u8 {
        match self {
            Intent::DrawRequest | Intent::TakebackRequest => 0,
            Intent::AsksMemory => 1,
            Intent::AsksPosition => 2,
            Intent::AsksPersona => 3,
            Intent::Preference => 4,
            Intent::SelfDisclosure => 5,
            Intent::TrashTalk => 6,
            Intent::Compliment => 7,
            Intent::Apology => 8,
            Intent::Farewell => 9,
            Intent::Thanks => 10,
            Intent::Greeting => 11,
            Intent::OffTopic => 12,
        }
    }
}

impl std::fmt::Display for Intent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Example lines per intent, for the nearest-neighbour vote. Written as
/// players type: short, informal, some without punctuation.
pub const EXAMPLES: &[(Intent, &[&str])] = &[
    (
        Intent::Greeting,
        &[
            "Hello there!",
            "Hi, nice to meet you",
            "Good evening, ready for a game?",
            "Hey, how are you doing today?",
            "Good luck, have fun",
            "Morning! Let's play",
        ],
    ),
    (
        Intent::Farewell,
        &[
            "Goodbye, see you next time",
            "I have to go now, bye",
            "Good night, thanks for the game",
            "See you tomorrow for a rematch",
            "That's enough chess for me today, later",
        ],
    ),
    (
        Intent::AsksMemory,
        &[
            "Do you remember me?",
            "Have we played before?",
            "What did I play against you last time?",
            "How many games have I won against you?",
            "Who won our last game?",
            "Do you remember what I told you about my job?",
            "What's our score so far?",
            "Do you remember which opening I like?",
        ],
    ),
    (
        Intent::AsksPersona,
        &[
            "Where did you learn to play chess?",
            "What is your favourite opening?",
            "Are you always this aggressive?",
            "How long have you been playing?",
            "What's your rating?",
            "Do you play in tournaments?",
            "Tell me about yourself",
            "What do you do when you are not playing chess?",
        ],
    ),
    (
        Intent::AsksPosition,
        &[
            "Am I winning?",
            "Who is better in this position?",
            "Why did you play that move?",
            "Was that a blunder?",
            "What's the best move here?",
            "Is this position lost for me?",
            "What are you threatening?",
            "Was my last move a mistake?",
        ],
    ),
    (
        Intent::SelfDisclosure,
        &[
            "I work as a nurse",
            "My dad taught me chess when I was six",
            "I live in a small town near the coast",
            "I'm a student at the university",
            "I have two kids and a dog",
            "I just came home from a long shift",
            "I grew up in Poland",
            "I play in a club on Tuesdays",
            "I'm a retired engineer",
        ],
    ),
    (
        Intent::Preference,
        &[
            "My favourite opening is the Sicilian",
            "I love playing gambits",
            "I prefer quiet positional games",
            "I always play the London as White",
            "I really enjoy endgames",
            "Blitz is my favourite time control",
            "I hate playing against the French",
        ],
    ),
    (
        Intent::Compliment,
        &[
            "Nice move!",
            "Wow, that was a brilliant sacrifice",
            "You play really well",
            "Good game, well played",
            "That was a clever idea",
            "Impressive, I didn't see that coming",
        ],
    ),
    (
        Intent::TrashTalk,
        &[
            "You're going down",
            "Is that all you've got?",
            "I'm going to crush you",
            "That move was terrible, you're a beginner",
            "Too easy",
            "You only won because you got lucky",
            "Prepare to lose",
        ],
    ),
    (
        Intent::Apology,
        &[
            "Sorry, I was distracted",
            "My bad, I took too long",
            "I'm so tired tonight",
            "Sorry for the slow moves",
            "I can't concentrate, long day",
            "Apologies, my phone rang",
        ],
    ),
    (
        Intent::DrawRequest,
        &[
            "Draw?",
            "Do you want to call it a draw?",
            "Shall we agree to a draw?",
            "I offer a draw",
            "Let's split the point",
        ],
    ),
    (
        Intent::TakebackRequest,
        &[
            "Can I take that back?",
            "Takeback please, I misclicked",
            "Oops, can I undo that move?",
            "Mouse slip, may I take it back?",
        ],
    ),
    (
        Intent::Thanks,
        &[
            "Thank you!",
            "Thanks for the game",
            "Thanks, that's kind of you",
            "Cheers, appreciate it",
        ],
    ),
    (
        Intent::OffTopic,
        &[
            "It's raining here again",
            "Did you watch the football yesterday?",
            "I need to buy groceries later",
            "What time is it?",
            "The traffic was terrible today",
            "lol",
        ],
    ),
];

/// Every example, in a fixed order, with its intent.
pub fn examples() -> impl Iterator<Item = (Intent, &'static str)> {
    EXAMPLES
        .iter()
        .flat_map(|(intent, lines)| lines.iter().map(move |l| (*intent, *l)))
}
