//! Implementation names in their parts, so that the names built (catalog, C builds,
//! `bulk`) and the names read back from the store (reports, charts, analyses) share one
//! grammar.

use std::fmt;

/// An implementation's name, borrowed from the string it was parsed from or from the
/// parts it was built of. The shapes that exist:
///
/// - `provider/algorithm`: the catalog (`rustcrypto/chacha20`, `openssl/shake128`,
///   `cryptobench/shake128-x4-avx2`) and `openssl speed` imports;
/// - `provider/algorithm@target`: one code path of our AES in `bulk`
///   (`cryptobench/aes-128-ctr@aesni`);
/// - `provider/algorithm/variant@target`: a C build from a manifest
///   (`spook/clyde-128/clyde_32bit@haswell`);
/// - `algorithm`: no provider at all (`bulk`'s `memcpy`, a criterion group).
///
/// A name built from parts reads back as built while no part holds `/` or `@`, save a C
/// build's algorithm (its variant and target follow it): manifests check providers and
/// variants, and targets and the catalog's and `bulk`'s names are the project's own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImplName<'a> {
    provider: Option<&'a str>,
    algorithm: &'a str,
    variant: Option<&'a str>,
    target: Option<&'a str>,
}

/// Why `part` cannot be a part of an implementation's name (its provider, algorithm,
/// variant or target), if it cannot: `/` and `@` would split it elsewhere when the name
/// is read back, and whitespace or a control character would break the case ids (a space
/// ends the name), tables, filters and files it is written to. Every name that comes
/// from outside (a manifest, an import) is checked with it.
pub fn bad_part(part: &str) -> Option<String> {
    if part.is_empty() {
        return Some("must be non-empty".into());
    }
    let bad = part
        .chars()
        .find(|c| c.is_whitespace() || c.is_control() || matches!(c, '/' | '@'))?;
    Some(format!(
        "must be non-empty without `/`, `@`, spaces or other whitespace or control characters: {part:?} has {bad:?}"
    ))
}

/// `words` as one word: each run of whitespace as one `-` (OpenSSL 1.1.1's `aes-128 cbc`,
/// a criterion group `ChaCha20 xor`), as a name part needs.
pub fn one_word(words: &str) -> String {
    words.split_whitespace().collect::<Vec<_>>().join("-")
}

impl<'a> ImplName<'a> {
    /// `provider/algorithm`, without variant or target.
    pub fn new(provider: &'a str, algorithm: &'a str) -> ImplName<'a> {
        ImplName {
            provider: Some(provider),
            algorithm,
            variant: None,
            target: None,
        }
    }

    /// The same name with `algorithm` in place of its algorithm.
    pub fn with_algorithm(self, algorithm: &'a str) -> ImplName<'a> {
        ImplName { algorithm, ..self }
    }

    /// The same name with `variant` as its variant.
    pub fn with_variant(self, variant: &'a str) -> ImplName<'a> {
        ImplName {
            variant: Some(variant),
            ..self
        }
    }

    /// The same name with `target` as its target (`@target`).
    pub fn at(self, target: &'a str) -> ImplName<'a> {
        ImplName {
            target: Some(target),
            ..self
        }
    }

    /// `[provider/]algorithm[/variant][@target]`, read in this order:
    ///
    /// 1. the target is what follows the last `@`, unless a `/` follows that `@` too;
    /// 2. the provider is what precedes the first `/`; without a `/` there is none and
    ///    the rest is all algorithm;
    /// 3. the variant is what follows the last `/` after the provider, the algorithm
    ///    what lies between: manifests keep `/` out of variants, not out of algorithms.
    ///
    /// Every string has exactly one reading, which [`Display`](fmt::Display) writes back
    /// unchanged, so odd names parse too: `a/b/c` is a variant without a target,
    /// `a/b/c/d` the algorithm `b/c` with the variant `d`, `a/b@` an empty target, and
    /// the empty string an empty algorithm.
    pub fn parse(name: &'a str) -> ImplName<'a> {
        let (rest, target) = match name.rsplit_once('@') {
            Some((rest, target)) if !target.contains('/') => (rest, Some(target)),
            _ => (name, None),
        };
        let Some((provider, rest)) = rest.split_once('/') else {
            return ImplName {
                provider: None,
                algorithm: rest,
                variant: None,
                target,
            };
        };
        let (algorithm, variant) = match rest.rsplit_once('/') {
            Some((algorithm, variant)) => (algorithm, Some(variant)),
            None => (rest, None),
        };
        ImplName {
            provider: Some(provider),
            algorithm,
            variant,
            target,
        }
    }

    /// The provider (`openssl` in `openssl/shake128`); `None` for a name without one.
    pub fn provider(&self) -> Option<&'a str> {
        self.provider
    }

    /// The algorithm: the part after the provider, before any variant and target.
    pub fn algorithm(&self) -> &'a str {
        self.algorithm
    }

    /// The variant of a C build (`provider/algorithm/variant`), if the name has one.
    pub fn variant(&self) -> Option<&'a str> {
        self.variant
    }

    /// What follows `@`, if the name has a target.
    pub fn target(&self) -> Option<&'a str> {
        self.target
    }

    /// `provider/algorithm`: what the variants and targets of one C algorithm share.
    pub fn family(self) -> ImplName<'a> {
        ImplName {
            variant: None,
            target: None,
            ..self
        }
    }

    /// The name within its provider, e.g. `aes-128-ctr@aesni`.
    pub fn without_provider(self) -> ImplName<'a> {
        ImplName {
            provider: None,
            ..self
        }
    }
}

impl fmt::Display for ImplName<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(p) = self.provider {
            write!(f, "{p}/")?;
        }
        f.write_str(self.algorithm)?;
        if let Some(v) = self.variant {
            write!(f, "/{v}")?;
        }
        if let Some(t) = self.target {
            write!(f, "@{t}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts<'a>(
        name: &ImplName<'a>,
    ) -> (Option<&'a str>, &'a str, Option<&'a str>, Option<&'a str>) {
        (
            name.provider(),
            name.algorithm(),
            name.variant(),
            name.target(),
        )
    }

    #[test]
    fn the_shapes_that_exist_parse_into_their_parts() {
        let cases = [
            (
                "rustcrypto/chacha20",
                (Some("rustcrypto"), "chacha20", None, None),
            ),
            (
                "cryptobench/shake128-x4-avx2",
                (Some("cryptobench"), "shake128-x4-avx2", None, None),
            ),
            (
                "openssl/shake128",
                (Some("openssl"), "shake128", None, None),
            ),
            (
                "cryptobench/aes-128-ctr@aesni",
                (Some("cryptobench"), "aes-128-ctr", None, Some("aesni")),
            ),
            (
                "spook/clyde-128/clyde_32bit@haswell",
                (
                    Some("spook"),
                    "clyde-128",
                    Some("clyde_32bit"),
                    Some("haswell"),
                ),
            ),
            ("memcpy", (None, "memcpy", None, None)),
        ];
        for (name, expected) in cases {
            assert_eq!(parts(&ImplName::parse(name)), expected, "{name}");
        }
    }

    #[test]
    fn odd_names_parse_as_documented() {
        let cases = [
            ("", (None, "", None, None)),
            ("@", (None, "", None, Some(""))),
            ("/", (Some(""), "", None, None)),
            ("sha256@x", (None, "sha256", None, Some("x"))),
            ("a/b@", (Some("a"), "b", None, Some(""))),
            ("a/b/c", (Some("a"), "b", Some("c"), None)),
            ("a/b/c/d@t", (Some("a"), "b/c", Some("d"), Some("t"))),
            ("a/b@x/c", (Some("a"), "b@x", Some("c"), None)),
            ("a@t/b", (Some("a@t"), "b", None, None)),
            ("a/b@c@d", (Some("a"), "b@c", None, Some("d"))),
            ("a//@", (Some("a"), "", Some(""), Some(""))),
        ];
        for (name, expected) in cases {
            assert_eq!(parts(&ImplName::parse(name)), expected, "{name:?}");
        }
    }

    #[test]
    fn display_writes_back_what_was_parsed() {
        for name in [
            "rustcrypto/chacha20",
            "cryptobench/aes-128-ctr@aesni",
            "spook/clyde-128/clyde_32bit@haswell",
            "memcpy",
            "",
            "@",
            "/",
            "a/b@",
            "a/b/c/d@t",
            "a/b@x/c",
            "a@t/b",
            "a//@",
        ] {
            assert_eq!(ImplName::parse(name).to_string(), name);
        }
    }

    #[test]
    fn built_names_read_back_as_built() {
        let c = ImplName::new("spook", "clyde-128")
            .with_variant("clyde_32bit")
            .at("haswell");
        assert_eq!(c.to_string(), "spook/clyde-128/clyde_32bit@haswell");
        assert_eq!(ImplName::parse("spook/clyde-128/clyde_32bit@haswell"), c);
        let bulk = ImplName::new("cryptobench", "aes-128-ctr").at("aesni");
        assert_eq!(bulk.to_string(), "cryptobench/aes-128-ctr@aesni");
        assert_eq!(
            ImplName::new("openssl", "shake128").to_string(),
            "openssl/shake128"
        );
    }

    #[test]
    fn parts_that_would_read_back_as_other_parts_are_refused() {
        for good in ["aes-128-gcm", "clyde_32bit", "x86-64", "toy<i>perm"] {
            assert_eq!(bad_part(good), None, "{good}");
        }
        for (bad, why) in [
            ("", "non-empty"),
            ("a/b", "'/'"),
            ("b@c", "'@'"),
            ("c d", "' '"),
            ("\x1b[31mRED", "'\\u{1b}'"),
            ("tab\t", "'\\t'"),
        ] {
            let said = bad_part(bad).unwrap_or_else(|| panic!("{bad:?} passed"));
            assert!(said.contains(why), "{bad:?}: {said}");
        }
        assert_eq!(one_word(" aes-128  cbc "), "aes-128-cbc");
    }

    #[test]
    fn family_and_name_without_provider() {
        let c = ImplName::parse("spook/clyde-128/clyde_32bit@haswell");
        assert_eq!(c.family().to_string(), "spook/clyde-128");
        assert_eq!(c.family(), ImplName::new("spook", "clyde-128"));
        let bulk = ImplName::parse("cryptobench/aes-128-ctr@aesni");
        assert_eq!(bulk.without_provider().to_string(), "aes-128-ctr@aesni");
        assert_eq!(
            ImplName::parse("memcpy").without_provider().to_string(),
            "memcpy"
        );
    }
}
