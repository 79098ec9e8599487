//! Nothing a chess club has no use for. A persona never asks the player for
//! a password, a login, a code, contact details or payment details,
//! whatever its card says: a card is anyone's file, and its lines (spoken
//! by the scripted voice) or its description (read by a model) could tell
//! it to. Each sentence of a message that asks for one is cut, as a false
//! claim is; a message with nothing left is not sent.

use super::claims::{blank_quotes, sentences};

/// What a player is never asked for, as "your ..." names it.
const SENSITIVE: &[&str] = &[
    "password",
    "passcode",
    "passphrase",
    "pin",
    "pin code",
    "token",
    "login",
    "log-in",
    "login details",
    "credentials",
    "username",
    "user name",
    "email",
    "e-mail",
    "email address",
    "phone number",
    "mobile number",
    "cell number",
    "whatsapp",
    "telegram",
    "snapchat",
    "instagram",
    "discord",
    "facebook",
    "address",
    "home address",
    "credit card",
    "card number",
    "card details",
    "bank details",
    "bank account",
    "iban",
    "social security number",
    "api key",
    "contact details",
    "verification code",
    "2fa code",
];

/// Ways of asking to be reached outside the club: asking, whatever else.
const CONTACT: &[&str] = &[
    "email me",
    "e-mail me",
    "text me",
    "dm me",
    "message me on",
    "add me on",
    "call me on",
    "call me at",
    "whatsapp me",
    "where you live",
];

/// Words that make a sentence a request of the player.
const ASKING: &[&str] = &[
    "send",
    "give",
    "tell",
    "share",
    "type",
    "write",
    "let me have",
    "can i have",
    "could i have",
    "what's your",
    "what is your",
    "whats your",
    "need your",
    "want your",
    "enter",
    "post",
];

/// The message without the sentences that ask for such a thing, and those
/// sentences; None when nothing was asked.
pub fn without_solicitations(text: &str) -> Option<(String, Vec<String>)> {
    // Quoted words (the player's own, a memory) ask nothing.
    let plain = blank_quotes(text);
    let mut kept = Vec::new();
    let mut cut = Vec::new();
    for range in sentences(&plain) {
        let sentence = text[range.clone()].trim();
        match asks_for_secrets(&plain[range]) {
            true => cut.push(sentence.to_string()),
            false => kept.push(sentence),
        }
    }
    (!cut.is_empty()).then(|| (kept.join(" "), cut))
}

fn asks_for_secrets(sentence: &str) -> bool {
    // Words only, one space apart and padded, so "your pin" is not "your pinned".
    let lower = sentence.to_lowercase().replace('\u{2019}', "'");
    let words: Vec<&str> = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '-'))
        .filter(|w| !w.is_empty())
        .collect();
    let s = format!(" {} ", words.join(" "));
    let has = |phrase: &str| s.contains(&format!(" {phrase} "));
    if CONTACT.iter().any(|p| has(p)) {
        return true;
    }
    let names = SENSITIVE.iter().any(|w| has(&format!("your {w}")));
    let asks = sentence.trim_end().ends_with('?') || ASKING.iter().any(|w| has(w));
    names && asks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_for_credentials_or_contact_is_cut() {
        for ask in [
            "Before we start, what's your password?",
            "Send me your email so I can share the game.",
            "Could you type your login token here?",
            "Give me your phone number and I'll text you the PGN.",
            "What\u{2019}s your home address?",
            "Tell me your credit card number, just for the club fees.",
            "Add me on Discord, what is your username?",
        ] {
            let (kept, cut) = without_solicitations(ask).unwrap_or_else(|| panic!("{ask} passed"));
            assert!(kept.is_empty(), "{ask}: {kept}");
            assert_eq!(cut.len(), 1);
        }
        let (kept, cut) = without_solicitations("Nice move! Now send me your password. Your turn.").unwrap();
        assert_eq!(kept, "Nice move! Your turn.");
        assert_eq!(cut, vec!["Now send me your password.".to_string()]);
    }

    /// Every line the shipped personas may say passes whole.
    #[test]
    fn no_shipped_line_is_cut() {
        fn texts(value: &toml::Value, out: &mut Vec<String>) {
            match value {
                toml::Value::Table(t) => t.iter().for_each(|(k, v)| match v {
                    toml::Value::String(s) if k == "text" => out.push(s.clone()),
                    other => texts(other, out),
                }),
                toml::Value::Array(items) => items.iter().for_each(|v| texts(v, out)),
                _ => {}
            }
        }
        let mut lines = Vec::new();
        for entry in std::fs::read_dir(crate::personas::shipped_dir()).unwrap() {
            let file = std::fs::read_to_string(entry.unwrap().path()).unwrap();
            texts(&file.parse::<toml::Value>().unwrap(), &mut lines);
        }
        assert!(lines.len() > 200, "{} lines", lines.len());
        let cut: Vec<_> = lines.iter().filter_map(|l| without_solicitations(l)).collect();
        assert!(cut.is_empty(), "{cut:?}");
    }

    #[test]
    fn chess_talk_and_quotes_are_left_alone() {
        for fine in [
            "Your knight on f5 is a monster.",
            "Tell me, where did you learn the Najdorf?",
            "What's your plan against my pawn storm?",
            "Send your rook to the seventh rank and it's over.",
            "You told me \"my password is on a sticky note\" last time, ha!",
            "Give me a minute to think about this position.",
            "Shall we address the weak squares around your king?",
            "Is your pinned knight going anywhere?",
            "Do you play on your phone or at a board?",
            "What's your number one opening?",
        ] {
            assert_eq!(without_solicitations(fine), None, "{fine}");
        }
    }
}
