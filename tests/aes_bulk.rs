//! Our bulk AES (crates/aes-bulk) against RustCrypto's `aes` and `ctr` crates and
//! OpenSSL, on every code path this CPU has: the cross-checks that need the libraries
//! `bulk` measures it beside, so they live with the CLI, not in the AES crate.

#![cfg(target_arch = "x86_64")]

use aes::cipher::{BlockCipherEncrypt, KeyInit};
use cryptobench::bulk::competitors::{
    fill_pattern, openssl_ctr, openssl_ecb_encrypt, rustcrypto_ctr,
};
use cryptobench_aes_bulk::{Aes, Path};

const KEY: [u8; 32] = *b"\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\
                        \x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f";

/// Every path, both key sizes, lengths around every group size and not multiples of 16,
/// against the `ctr` crate and OpenSSL.
#[test]
fn equals_the_ctr_crate_and_openssl() {
    let mut lens: Vec<usize> = (0..=600).collect();
    lens.extend([1023, 1024, 1025, 4096 + 7, 65_536 + 15, (1 << 20) + 5]);
    let iv = 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210u128;
    for path in Path::every_supported() {
        for key in [&KEY[..16], &KEY[..]] {
            let aes = Aes::new(key, path).unwrap();
            for &len in &lens {
                let plain = fill_pattern(len);
                let mut ours = plain.clone();
                aes.ctr(iv, &mut ours);
                let mut theirs = plain.clone();
                rustcrypto_ctr(key, iv, 0, &mut theirs);
                assert!(ours == theirs, "{path:?} key {} len {len}", key.len());
                if len % 97 == 0 || len > 600 {
                    let mut ossl = plain.clone();
                    openssl_ctr(key, iv, &mut ossl).unwrap();
                    assert!(ours == ossl, "{path:?} vs OpenSSL, len {len}");
                }
                aes.ctr(iv, &mut ours);
                assert!(ours == plain, "decryption restores, {path:?} len {len}");
            }
        }
    }
}

/// The kernels add to the low 64 bits only: the carry into the high half, and the wrap
/// of the whole 128-bit counter, must still come out as the `ctr` crate and OpenSSL do.
#[test]
fn counter_carries_and_wraps() {
    let len = 70 * 16 + 9;
    for iv in [
        (1u128 << 64) - 3,
        (1u128 << 64) - 40,
        (5u128 << 64) - 17,
        u128::MAX - 2,
        u128::MAX,
    ] {
        for path in Path::every_supported() {
            for key in [&KEY[..16], &KEY[..]] {
                let plain = fill_pattern(len);
                let mut ours = plain.clone();
                Aes::new(key, path).unwrap().ctr(iv, &mut ours);
                let mut theirs = plain.clone();
                rustcrypto_ctr(key, iv, 0, &mut theirs);
                assert!(ours == theirs, "{path:?} iv {iv:#x}");
                let mut ossl = plain.clone();
                openssl_ctr(key, iv, &mut ossl).unwrap();
                assert!(ours == ossl, "{path:?} iv {iv:#x} vs OpenSSL");
            }
        }
    }
}

/// A buffer encrypted in pieces from the right counters equals it encrypted whole.
#[test]
fn pieces_continue_the_counter() {
    let aes = Aes::new(&KEY[..16], Path::best().unwrap()).unwrap();
    let plain = fill_pattern(10_000);
    let mut whole = plain.clone();
    aes.ctr(7, &mut whole);
    let mut pieces = plain.clone();
    for (i, piece) in pieces.chunks_mut(48 * 16).enumerate() {
        aes.ctr(7 + (i * 48) as u128, piece);
    }
    assert!(whole == pieces);
}

/// Every path and key size against the `aes` crate block by block, and OpenSSL, for
/// block counts around every group size.
#[test]
fn equals_the_aes_crate_block_by_block_and_openssl() {
    let key: Vec<u8> = (100u8..132).collect();
    let mut blocks: Vec<usize> = (0..=70).collect();
    blocks.extend([255, 256, 257, 4099]);
    for path in Path::every_supported() {
        for key in [&key[..16], &key[..]] {
            let ours = Aes::new(key, path).unwrap();
            for &n in &blocks {
                let plain = fill_pattern(16 * n);
                let mut data = plain.clone();
                ours.ecb_encrypt(&mut data);
                for (i, (c, p)) in data.chunks(16).zip(plain.chunks(16)).enumerate() {
                    let mut b = aes::Block::try_from(p).unwrap();
                    match key.len() {
                        16 => aes::Aes128::new_from_slice(key)
                            .unwrap()
                            .encrypt_block(&mut b),
                        _ => aes::Aes256::new_from_slice(key)
                            .unwrap()
                            .encrypt_block(&mut b),
                    }
                    assert_eq!(c, &b[..], "{path:?} block {i} of {n}");
                }
                let mut ossl = plain.clone();
                openssl_ecb_encrypt(key, &mut ossl).unwrap();
                assert!(data == ossl, "{path:?} vs OpenSSL, {n} blocks");
                ours.ecb_decrypt(&mut data);
                assert!(data == plain, "{path:?} decrypts, {n} blocks");
            }
        }
    }
}
