//! A line's words as a sparse vector: its words, pairs of neighbouring
//! words and each word's three-letter pieces, hashed into a fixed number
//! of slots. The embedding carries the
//! line's meaning; these carry what a mean-pooled embedding blurs (a "?",
//! "not", a typo: "thnks" shares "thn" and "nks" with "thanks"), and the weights on
//! both are learned from the corpus, not listed.

/// Hashed slots for words, word pairs and letter triples.
pub const SLOTS: usize = 8192;

/// The line's words, word pairs and letter triples as (slot, weight),
/// weights of unit norm.
pub fn ngrams(text: &str) -> Vec<(usize, f32)> {
    let words = tokens(text);
    let mut slots: Vec<(usize, f32)> = Vec::with_capacity(words.len() * 2 + 1);
    let mut add = |feature: &str| {
        let slot = fnv1a(feature) as usize % SLOTS;
        match slots.iter_mut().find(|(s, _)| *s == slot) {
            Some((_, w)) => *w += 1.0,
            None => slots.push((slot, 1.0)),
        }
    };
    for w in &words {
        add(&format!("w:{w}"));
    }
    let bounded: Vec<&str> = std::iter::once("^")
        .chain(words.iter().map(String::as_str))
        .chain(std::iter::once("$"))
        .collect();
    for pair in bounded.windows(2) {
        add(&format!("b:{} {}", pair[0], pair[1]));
    }
    for w in &words {
        let marked: Vec<char> = std::iter::once('<')
            .chain(w.chars())
            .chain(std::iter::once('>'))
            .collect();
        for piece in marked.windows(3) {
            add(&format!("c:{}", piece.iter().collect::<String>()));
        }
    }
    let norm = slots.iter().map(|(_, w)| w * w).sum::<f32>().sqrt().max(f32::EPSILON);
    slots.iter_mut().for_each(|(_, w)| *w /= norm);
    slots
}

/// Lower-cased words (letters, digits, apostrophes) and every other
/// visible character on its own ("?", "!", an emoji).
fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    for c in text.chars().flat_map(char::to_lowercase) {
        let c = if c == '\u{2019}' { '\'' } else { c };
        if c.is_alphanumeric() || c == '\'' || c == '_' {
            word.push(c);
            continue;
        }
        if !word.is_empty() {
            out.push(std::mem::take(&mut word));
        }
        if !c.is_whitespace() {
            out.push(c.to_string());
        }
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

/// FNV-1a, 32 bits: stable across builds and platforms, unlike std's hasher.
fn fnv1a(text: &str) -> u32 {
    text.bytes()
        .fold(0x811c_9dc5, |h: u32, b| (h ^ u32::from(b)).wrapping_mul(0x0100_0193))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_and_pairs_fill_unit_norm_slots() {
        let f = ngrams("Draw?");
        // "draw", "?", "^ draw", "draw ?", "? $", "<dr", "dra", "raw", "aw>", "<?>"
        assert_eq!(f.len(), 10);
        let norm: f32 = f.iter().map(|(_, w)| w * w).sum();
        assert!((norm - 1.0).abs() < 1e-5);
        assert_eq!(ngrams("DRAW ?"), f, "case and spacing do not change the words");
    }

    #[test]
    fn the_hash_is_fixed() {
        // A trained model's weights sit in these slots: the hash must never drift.
        assert_eq!(fnv1a(""), 0x811c_9dc5);
        assert_eq!(fnv1a("a"), 0xe40c_292c);
    }
}
