//! What `bulk` measures: our AES, OpenSSL's EVP interface and RustCrypto's `aes` + `ctr`,
//! each split across the same pinned threads behind [`BulkCipher`], and `memcpy`, the
//! reference they are held against.

use aes::cipher::{BlockCipherDecrypt, BlockCipherEncrypt, KeyInit};
use anyhow::{Result, ensure};
use ctr::cipher::{KeyIvInit, StreamCipher, StreamCipherSeek};
use openssl::cipher::{Cipher, CipherRef};
use openssl::cipher_ctx::CipherCtx;

use super::threads::{for_each_chunk, for_each_pair};
use crate::name::ImplName;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Ctr,
    Ecb,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Algorithm {
    pub key_bits: usize,
    pub mode: Mode,
}

impl Algorithm {
    pub const ALL: [Algorithm; 4] = [
        Algorithm::new(128, Mode::Ctr),
        Algorithm::new(256, Mode::Ctr),
        Algorithm::new(128, Mode::Ecb),
        Algorithm::new(256, Mode::Ecb),
    ];

    pub const fn new(key_bits: usize, mode: Mode) -> Algorithm {
        Algorithm { key_bits, mode }
    }

    pub fn name(self) -> String {
        let mode = match self.mode {
            Mode::Ctr => "ctr",
            Mode::Ecb => "ecb",
        };
        format!("aes-{}-{mode}", self.key_bits)
    }

    fn openssl(self) -> &'static CipherRef {
        match (self.key_bits, self.mode) {
            (128, Mode::Ctr) => Cipher::aes_128_ctr(),
            (_, Mode::Ctr) => Cipher::aes_256_ctr(),
            (128, Mode::Ecb) => Cipher::aes_128_ecb(),
            (_, Mode::Ecb) => Cipher::aes_256_ecb(),
        }
    }
}

/// The key and initial counter of a run, shared by every implementation so that all must
/// produce the same ciphertext.
#[derive(Clone, Debug)]
pub struct Secret {
    key: [u8; 32],
    pub iv: u128,
}

impl Secret {
    pub fn new(key: [u8; 32], iv: u128) -> Secret {
        Secret { key, iv }
    }

    pub fn key(&self, alg: Algorithm) -> &[u8] {
        &self.key[..alg.key_bits / 8]
    }
}

/// One implementation of one algorithm that works in place on a buffer split across
/// `threads` pinned threads (chunk i from byte `threads::split(..)[i].start`, its counter
/// continuing from there).
pub trait BulkCipher: Sync {
    /// `provider/algorithm`, e.g. `openssl/aes-128-ctr`.
    fn name(&self) -> String;
    /// The crates its code comes from, among the catalog's (whose lock versions runs
    /// record: `providers::libraries_of_crates`); none for our own.
    fn crates(&self) -> &'static [&'static str];
    fn algorithm(&self) -> Algorithm;
    fn encrypt(&self, buf: &mut [u8], threads: usize) -> Result<()>;
    fn decrypt(&self, buf: &mut [u8], threads: usize) -> Result<()>;
}

/// Every implementation of every algorithm this machine can run. With `paths`, our AES
/// once more per code path the CPU supports, named `...@path`.
pub fn all(secret: &Secret, paths: bool) -> Vec<Box<dyn BulkCipher>> {
    let mut out: Vec<Box<dyn BulkCipher>> = Vec::new();
    for alg in Algorithm::ALL {
        ours(&mut out, alg, secret, paths);
        out.push(Box::new(OpenSsl {
            alg,
            secret: secret.clone(),
        }));
        out.push(Box::new(RustCrypto {
            alg,
            secret: secret.clone(),
        }));
    }
    out
}

#[cfg(target_arch = "x86_64")]
fn ours(out: &mut Vec<Box<dyn BulkCipher>>, alg: Algorithm, secret: &Secret, paths: bool) {
    use super::aes::{Aes, Path};
    let mut add = |path: Path, target: Option<&'static str>| {
        if let Some(aes) = Aes::new(secret.key(alg), path) {
            out.push(Box::new(Ours {
                aes,
                alg,
                iv: secret.iv,
                target,
            }));
        }
    };
    if let Some(best) = Path::best() {
        add(best, None);
    }
    if paths {
        for path in Path::ALL {
            add(path, Some(path.name()));
        }
    }
}

/// Our AES needs AES-NI; elsewhere only the libraries are measured.
#[cfg(not(target_arch = "x86_64"))]
fn ours(_: &mut Vec<Box<dyn BulkCipher>>, _: Algorithm, _: &Secret, _: bool) {}

#[cfg(target_arch = "x86_64")]
struct Ours {
    aes: super::aes::Aes,
    alg: Algorithm,
    iv: u128,
    /// The code path as the name's target, where it is one of several measured.
    target: Option<&'static str>,
}

#[cfg(target_arch = "x86_64")]
impl BulkCipher for Ours {
    fn name(&self) -> String {
        let alg = self.alg.name();
        let name = ImplName::new("cryptobench", &alg);
        self.target.map_or(name, |t| name.at(t)).to_string()
    }
    fn crates(&self) -> &'static [&'static str] {
        &[]
    }
    fn algorithm(&self) -> Algorithm {
        self.alg
    }
    fn encrypt(&self, buf: &mut [u8], threads: usize) -> Result<()> {
        match self.alg.mode {
            Mode::Ctr => for_each_chunk(buf, threads, |offset, chunk| {
                self.aes.ctr(chunk_counter(self.iv, offset), chunk)
            }),
            Mode::Ecb => for_each_chunk(buf, threads, |_, chunk| self.aes.ecb_encrypt(chunk)),
        };
        Ok(())
    }
    fn decrypt(&self, buf: &mut [u8], threads: usize) -> Result<()> {
        match self.alg.mode {
            Mode::Ctr => return self.encrypt(buf, threads),
            Mode::Ecb => for_each_chunk(buf, threads, |_, chunk| self.aes.ecb_decrypt(chunk)),
        };
        Ok(())
    }
}

/// The counter block of the chunk starting at byte `offset` (a multiple of 16).
fn chunk_counter(iv: u128, offset: usize) -> u128 {
    iv.wrapping_add((offset / 16) as u128)
}

/// OpenSSL through EVP (`EVP_CipherUpdate`, the code path `openssl speed -evp` times),
/// one context per thread and chunk.
struct OpenSsl {
    alg: Algorithm,
    secret: Secret,
}

impl OpenSsl {
    fn apply(&self, buf: &mut [u8], threads: usize, encrypt: bool) -> Result<()> {
        for_each_chunk(buf, threads, |offset, chunk| {
            let iv = chunk_counter(self.secret.iv, offset);
            openssl_in_place(self.alg, self.secret.key(self.alg), iv, encrypt, chunk)
        })
        .into_iter()
        .collect()
    }
}

impl BulkCipher for OpenSsl {
    fn name(&self) -> String {
        ImplName::new("openssl", &self.alg.name()).to_string()
    }
    fn crates(&self) -> &'static [&'static str] {
        &["openssl"]
    }
    fn algorithm(&self) -> Algorithm {
        self.alg
    }
    fn encrypt(&self, buf: &mut [u8], threads: usize) -> Result<()> {
        self.apply(buf, threads, true)
    }
    fn decrypt(&self, buf: &mut [u8], threads: usize) -> Result<()> {
        self.apply(buf, threads, false)
    }
}

/// `alg` over `data` in place with OpenSSL's EVP interface, from counter `iv` (ignored by
/// ECB), padding off.
fn openssl_in_place(
    alg: Algorithm,
    key: &[u8],
    iv: u128,
    encrypt: bool,
    data: &mut [u8],
) -> Result<()> {
    // EVP takes an `int` length: a call per GiB keeps far from its limit.
    const PIECE: usize = 1 << 30;
    let mut ctx = CipherCtx::new()?;
    let iv = iv.to_be_bytes();
    let iv = (alg.mode == Mode::Ctr).then_some(&iv[..]);
    if encrypt {
        ctx.encrypt_init(Some(alg.openssl()), Some(key), iv)?;
    } else {
        ctx.decrypt_init(Some(alg.openssl()), Some(key), iv)?;
    }
    ctx.set_padding(false);
    // The `openssl` crate asks for one block of room after the input even where nothing is
    // held back (as with padding off), so the last block goes through a buffer that has it.
    let body = data.len().saturating_sub(16);
    let mut start = 0;
    while start < body {
        let len = (body - start).min(PIECE);
        let written = ctx.cipher_update_inplace(&mut data[start..], len)?;
        ensure!(written == len, "OpenSSL wrote {written} of {len} bytes");
        start += len;
    }
    let last = &mut data[body..];
    let mut t = [0u8; 32];
    t[..last.len()].copy_from_slice(last);
    let written = ctx.cipher_update_inplace(&mut t, last.len())?;
    ensure!(
        written == last.len(),
        "OpenSSL wrote {written} of {} bytes",
        last.len()
    );
    last.copy_from_slice(&t[..written]);
    Ok(())
}

/// RustCrypto's `aes` (with its own AES-NI/VAES backends) and `ctr` crates.
struct RustCrypto {
    alg: Algorithm,
    secret: Secret,
}

impl RustCrypto {
    fn apply(&self, buf: &mut [u8], threads: usize, encrypt: bool) {
        let key = self.secret.key(self.alg);
        match self.alg.mode {
            Mode::Ctr => for_each_chunk(buf, threads, |offset, chunk| {
                rustcrypto_ctr(key, self.secret.iv, offset, chunk)
            }),
            Mode::Ecb => {
                for_each_chunk(buf, threads, |_, chunk| rustcrypto_ecb(key, encrypt, chunk))
            }
        };
    }
}

impl BulkCipher for RustCrypto {
    fn name(&self) -> String {
        ImplName::new("rustcrypto", &self.alg.name()).to_string()
    }
    fn crates(&self) -> &'static [&'static str] {
        match self.alg.mode {
            Mode::Ctr => &["aes", "ctr"],
            Mode::Ecb => &["aes"],
        }
    }
    fn algorithm(&self) -> Algorithm {
        self.alg
    }
    fn encrypt(&self, buf: &mut [u8], threads: usize) -> Result<()> {
        self.apply(buf, threads, true);
        Ok(())
    }
    fn decrypt(&self, buf: &mut [u8], threads: usize) -> Result<()> {
        self.apply(buf, threads, false);
        Ok(())
    }
}

/// The `ctr` crate's key stream from byte `offset` of the stream that starts at `iv`,
/// XORed into `data`. `key` is 16 or 32 bytes.
pub fn rustcrypto_ctr(key: &[u8], iv: u128, offset: usize, data: &mut [u8]) {
    fn run<C>(key: &[u8], iv: u128, offset: usize, data: &mut [u8])
    where
        C: KeyIvInit + StreamCipher + StreamCipherSeek,
    {
        let mut c = C::new_from_slices(key, &iv.to_be_bytes()).expect("an AES key length");
        c.seek(offset as u64);
        c.apply_keystream(data);
    }
    match key.len() {
        16 => run::<ctr::Ctr128BE<aes::Aes128>>(key, iv, offset, data),
        _ => run::<ctr::Ctr128BE<aes::Aes256>>(key, iv, offset, data),
    }
}

/// The `aes` crate over whole blocks (its `encrypt_blocks` runs several blocks in flight).
fn rustcrypto_ecb(key: &[u8], encrypt: bool, data: &mut [u8]) {
    fn run<C>(key: &[u8], encrypt: bool, blocks: &mut [aes::Block])
    where
        C: KeyInit
            + BlockCipherEncrypt
            + BlockCipherDecrypt
            + aes::cipher::BlockSizeUser<BlockSize = aes::cipher::consts::U16>,
    {
        let c = C::new_from_slice(key).expect("an AES key length");
        if encrypt {
            c.encrypt_blocks(blocks);
        } else {
            c.decrypt_blocks(blocks);
        }
    }
    let (blocks, rest) = aes::Block::slice_as_chunks_mut(data);
    assert!(rest.is_empty(), "ECB works on whole 16-byte blocks");
    match key.len() {
        16 => run::<aes::Aes128>(key, encrypt, blocks),
        _ => run::<aes::Aes256>(key, encrypt, blocks),
    }
}

/// What every implementation of `alg` must turn `plain` into, single-threaded (RustCrypto:
/// the reference the others are checked against before they are timed; it is checked
/// against OpenSSL and FIPS 197 / SP 800-38A in the tests).
pub fn reference(alg: Algorithm, secret: &Secret, plain: &mut [u8]) {
    match alg.mode {
        Mode::Ctr => rustcrypto_ctr(secret.key(alg), secret.iv, 0, plain),
        Mode::Ecb => rustcrypto_ecb(secret.key(alg), true, plain),
    }
}

/// Block `index` of the ciphertext, given its plaintext: one AES call with the `aes` crate,
/// cheap enough to spot-check every run.
pub fn reference_block(alg: Algorithm, secret: &Secret, index: u64, plain: &[u8]) -> [u8; 16] {
    let mut block = [0u8; 16];
    block.copy_from_slice(plain);
    match alg.mode {
        Mode::Ctr => rustcrypto_ctr(secret.key(alg), secret.iv, index as usize * 16, &mut block),
        Mode::Ecb => rustcrypto_ecb(secret.key(alg), true, &mut block),
    }
    block
}

/// The reference: `dst` = `src`, split across `threads` pinned threads like the ciphers.
/// glibc's `memcpy` streams GiB-sized copies with non-temporal stores, so it reads and
/// writes each byte once, as in-place encryption does.
pub fn memcpy(dst: &mut [u8], src: &[u8], threads: usize) {
    for_each_pair(dst, src, threads, |d, s| d.copy_from_slice(s));
}

/// Bytes that differ from block to block, for tests (here and of our AES crate).
#[doc(hidden)]
pub fn fill_pattern(len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u32).wrapping_mul(2_654_435_761).to_le_bytes()[2])
        .collect()
}

/// OpenSSL's AES-CTR in place: the reference our AES is checked against in tests.
#[doc(hidden)]
pub fn openssl_ctr(key: &[u8], iv: u128, data: &mut [u8]) -> Result<()> {
    let alg = Algorithm::new(key.len() * 8, Mode::Ctr);
    openssl_in_place(alg, key, iv, true, data)
}

/// OpenSSL's AES-ECB encryption in place: the reference our AES is checked against in tests.
#[doc(hidden)]
pub fn openssl_ecb_encrypt(key: &[u8], data: &mut [u8]) -> Result<()> {
    let alg = Algorithm::new(key.len() * 8, Mode::Ecb);
    openssl_in_place(alg, key, 0, true, data)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secret() -> Secret {
        let key: Vec<u8> = (7u8..39).collect();
        Secret::new(
            key.try_into().unwrap(),
            0xfeed_face_cafe_beef_0000_0000_ffff_fff0,
        )
    }

    /// Every implementation, split over thread counts that do and do not divide the length,
    /// against the single-threaded reference; then decryption restores the input.
    #[test]
    fn every_implementation_on_every_split_equals_the_reference() {
        let s = secret();
        for imp in all(&s, true) {
            for len in [16, 4096, 20_000, 3 * 4096 + 48, (1 << 20) + 4096 + 32] {
                let plain = fill_pattern(len);
                let mut expected = plain.clone();
                reference(imp.algorithm(), &s, &mut expected);
                for threads in [1, 2, 3, 5, 8] {
                    let mut data = plain.clone();
                    imp.encrypt(&mut data, threads).unwrap();
                    assert!(
                        data == expected,
                        "{} len {len} threads {threads}",
                        imp.name()
                    );
                    imp.decrypt(&mut data, threads).unwrap();
                    assert!(
                        data == plain,
                        "{} decrypts, len {len} threads {threads}",
                        imp.name()
                    );
                }
            }
        }
    }

    /// The implementations OpenSSL is compared with must agree with it, including CTR
    /// lengths that are not whole blocks.
    #[test]
    fn the_reference_agrees_with_openssl() {
        let s = secret();
        for alg in Algorithm::ALL {
            for len in [16, 32, 4096, 65_536 + 48] {
                let plain = fill_pattern(len);
                let mut ours = plain.clone();
                reference(alg, &s, &mut ours);
                let mut theirs = plain.clone();
                openssl_in_place(alg, s.key(alg), s.iv, true, &mut theirs).unwrap();
                assert!(ours == theirs, "{} len {len}", alg.name());
                openssl_in_place(alg, s.key(alg), s.iv, false, &mut theirs).unwrap();
                assert!(
                    theirs == plain,
                    "{} len {len}: OpenSSL decrypts",
                    alg.name()
                );
            }
        }
        let ctr = Algorithm::ALL[0];
        for len in [1, 15, 17, 100, 4097] {
            let plain = fill_pattern(len);
            let mut ours = plain.clone();
            reference(ctr, &s, &mut ours);
            let mut theirs = plain.clone();
            openssl_ctr(s.key(ctr), s.iv, &mut theirs).unwrap();
            assert!(ours == theirs, "CTR len {len}");
        }
    }

    #[test]
    fn reference_blocks_are_blocks_of_the_reference() {
        let s = secret();
        let plain = fill_pattern(64 * 16);
        for alg in Algorithm::ALL {
            let mut whole = plain.clone();
            reference(alg, &s, &mut whole);
            for i in [0usize, 1, 17, 63] {
                let block = reference_block(alg, &s, i as u64, &plain[16 * i..16 * i + 16]);
                assert_eq!(&block[..], &whole[16 * i..16 * i + 16], "{}", alg.name());
            }
        }
    }

    #[test]
    fn memcpy_copies_every_chunk() {
        let src = fill_pattern(5 * 4096 + 16);
        for threads in [1, 2, 3, 8] {
            let mut dst = vec![0u8; src.len()];
            memcpy(&mut dst, &src, threads);
            assert!(dst == src, "threads {threads}");
        }
    }
}
