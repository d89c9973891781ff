//! ML-KEM as FIPS 203 defines it (the `_internal` algorithms of section 6, which take
//! their randomness as arguments), written for clarity: every coefficient is reduced with
//! `%` and the NTT follows Algorithms 9 and 10 line by line.

use super::keccak;

const N: usize = 256;
const Q: u32 = 3329;
const ZETA: u32 = 17;

type Poly = [u32; N];

/// A parameter set (FIPS 203 section 8, table 2).
pub struct Params {
    /// Rank of the module: polynomials per vector (2, 3 or 4).
    pub k: usize,
    /// eta_1: the binomial noise parameter of s, e (key generation) and y (encryption).
    pub eta1: usize,
    /// eta_2: the binomial noise parameter of e1 and e2 (encryption).
    pub eta2: usize,
    /// d_u: bits per coefficient of the ciphertext's compressed vector u.
    pub du: u32,
    /// d_v: bits per coefficient of the ciphertext's compressed polynomial v.
    pub dv: u32,
}

/// ML-KEM-512 (security category 1).
pub const ML_KEM_512: Params = Params {
    k: 2,
    eta1: 3,
    eta2: 2,
    du: 10,
    dv: 4,
};
/// ML-KEM-768 (security category 3).
pub const ML_KEM_768: Params = Params {
    k: 3,
    eta1: 2,
    eta2: 2,
    du: 10,
    dv: 4,
};
/// ML-KEM-1024 (security category 5).
pub const ML_KEM_1024: Params = Params {
    k: 4,
    eta1: 2,
    eta2: 2,
    du: 11,
    dv: 5,
};

impl Params {
    /// Encapsulation key length in bytes: 384k + 32.
    pub fn ek_len(&self) -> usize {
        384 * self.k + 32
    }
    /// Decapsulation key length in bytes (the expanded form): 768k + 96.
    pub fn dk_len(&self) -> usize {
        768 * self.k + 96
    }
    /// Ciphertext length in bytes: 32 (d_u k + d_v).
    pub fn ct_len(&self) -> usize {
        32 * (self.du as usize * self.k + self.dv as usize)
    }
}

fn pow(mut b: u32, mut e: u32) -> u32 {
    let mut r = 1;
    while e > 0 {
        if e & 1 == 1 {
            r = r * b % Q;
        }
        b = b * b % Q;
        e >>= 1;
    }
    r
}

fn bitrev7(i: u32) -> u32 {
    (i as u8).reverse_bits() as u32 >> 1
}

/// Algorithm 9.
fn ntt(f: &Poly) -> Poly {
    let mut f = *f;
    let mut i = 1;
    let mut len = 128;
    while len >= 2 {
        for start in (0..N).step_by(2 * len) {
            let zeta = pow(ZETA, bitrev7(i));
            i += 1;
            for j in start..start + len {
                let t = zeta * f[j + len] % Q;
                f[j + len] = (f[j] + Q - t) % Q;
                f[j] = (f[j] + t) % Q;
            }
        }
        len /= 2;
    }
    f
}

/// Algorithm 10.
fn ntt_inverse(f: &Poly) -> Poly {
    let mut f = *f;
    let mut i = 127;
    let mut len = 2;
    while len <= 128 {
        for start in (0..N).step_by(2 * len) {
            let zeta = pow(ZETA, bitrev7(i));
            i -= 1;
            for j in start..start + len {
                let t = f[j];
                f[j] = (t + f[j + len]) % Q;
                f[j + len] = zeta * ((f[j + len] + Q - t) % Q) % Q;
            }
        }
        len *= 2;
    }
    f.map(|x| x * 3303 % Q)
}

/// Algorithms 11 and 12.
fn multiply_ntts(f: &Poly, g: &Poly) -> Poly {
    let mut h = [0; N];
    for i in 0..128 {
        let gamma = pow(ZETA, 2 * bitrev7(i as u32) + 1);
        let (a0, a1, b0, b1) = (f[2 * i], f[2 * i + 1], g[2 * i], g[2 * i + 1]);
        h[2 * i] = (a0 * b0 % Q + a1 * b1 % Q * gamma) % Q;
        h[2 * i + 1] = (a0 * b1 + a1 * b0) % Q;
    }
    h
}

fn add(f: &Poly, g: &Poly) -> Poly {
    std::array::from_fn(|i| (f[i] + g[i]) % Q)
}

/// Algorithm 5 (ByteEncode_d): `d` bits per coefficient, least significant bit first.
fn byte_encode(fs: &[Poly], d: u32, out: &mut Vec<u8>) {
    let mut bits = Vec::with_capacity(fs.len() * N * d as usize);
    for f in fs {
        for &a in f {
            bits.extend((0..d).map(|b| (a >> b) & 1));
        }
    }
    out.extend(bits.chunks(8).map(|c| {
        c.iter()
            .enumerate()
            .fold(0u8, |acc, (i, &b)| acc | (b as u8) << i)
    }));
}

/// Algorithm 6 (ByteDecode_d) of one polynomial from `32 * d` bytes.
fn byte_decode(bytes: &[u8], d: u32) -> Poly {
    let m = if d == 12 { Q } else { 1 << d };
    std::array::from_fn(|i| {
        let a = (0..d as usize).fold(0u32, |acc, b| {
            let bit = i * d as usize + b;
            acc | (((bytes[bit / 8] >> (bit % 8)) & 1) as u32) << b
        });
        a % m
    })
}

fn byte_decode_vec(bytes: &[u8], d: u32, k: usize) -> Vec<Poly> {
    bytes
        .chunks(32 * d as usize)
        .take(k)
        .map(|c| byte_decode(c, d))
        .collect()
}

/// Section 4.2.1: round(2^d / q * x) mod 2^d, rounding halves up.
fn compress(f: &Poly, d: u32) -> Poly {
    f.map(|x| ((((x as u64) << (d + 1)) + Q as u64) / (2 * Q as u64)) as u32 % (1 << d))
}

/// Section 4.2.1: round(q / 2^d * y), rounding halves up.
fn decompress(f: &Poly, d: u32) -> Poly {
    f.map(|y| (y * Q + (1 << (d - 1))) >> d)
}

/// Algorithm 7.
fn sample_ntt(rho: &[u8], j: u8, i: u8) -> Poly {
    let seed = [rho, &[j, i]].concat();
    let mut stream_len = 168 * 6;
    loop {
        let c = keccak::shake128(&seed, stream_len);
        let mut a = [0; N];
        let mut n = 0;
        for t in c.chunks_exact(3) {
            let d1 = t[0] as u32 + 256 * (t[1] as u32 % 16);
            let d2 = t[1] as u32 / 16 + 16 * t[2] as u32;
            for d in [d1, d2] {
                if d < Q && n < N {
                    a[n] = d;
                    n += 1;
                }
            }
            if n == N {
                return a;
            }
        }
        stream_len *= 2;
    }
}

/// Algorithm 8.
fn sample_cbd(bytes: &[u8], eta: usize) -> Poly {
    let bit = |i: usize| ((bytes[i / 8] >> (i % 8)) & 1) as u32;
    std::array::from_fn(|i| {
        let x: u32 = (0..eta).map(|j| bit(2 * i * eta + j)).sum();
        let y: u32 = (0..eta).map(|j| bit(2 * i * eta + eta + j)).sum();
        (x + Q - y) % Q
    })
}

fn prf(eta: usize, s: &[u8], b: u8) -> Vec<u8> {
    keccak::shake256(&[s, &[b]].concat(), 64 * eta)
}

fn g(input: &[u8]) -> ([u8; 32], [u8; 32]) {
    let out = keccak::sha3_512(input);
    (
        out[..32].try_into().expect("32 bytes"),
        out[32..].try_into().expect("32 bytes"),
    )
}

fn h(input: &[u8]) -> Vec<u8> {
    keccak::sha3_256(input)
}

/// J of section 4.1: the implicit-rejection key for decapsulation key seed `z` and
/// ciphertext `c`.
pub fn j(z: &[u8], c: &[u8]) -> [u8; 32] {
    keccak::shake256(&[z, c].concat(), 32)
        .try_into()
        .expect("32 bytes")
}

/// Â, sampled from ρ: entry (i, j) is `a[i][j]`.
fn matrix(p: &Params, rho: &[u8]) -> Vec<Vec<Poly>> {
    (0..p.k)
        .map(|i| {
            (0..p.k)
                .map(|j| sample_ntt(rho, j as u8, i as u8))
                .collect()
        })
        .collect()
}

/// Algorithm 13: (ek_pke, dk_pke).
fn pke_keygen(p: &Params, d: &[u8; 32]) -> (Vec<u8>, Vec<u8>) {
    let (rho, sigma) = g(&[d.as_slice(), &[p.k as u8]].concat());
    let a = matrix(p, &rho);
    let mut n = 0u8;
    let mut sample = |eta| {
        let f = sample_cbd(&prf(eta, &sigma, n), eta);
        n += 1;
        f
    };
    let s: Vec<Poly> = (0..p.k).map(|_| sample(p.eta1)).collect();
    let e: Vec<Poly> = (0..p.k).map(|_| sample(p.eta1)).collect();
    let s_hat: Vec<Poly> = s.iter().map(ntt).collect();
    let t_hat: Vec<Poly> = (0..p.k)
        .map(|i| {
            (0..p.k).fold(ntt(&e[i]), |acc, j| {
                add(&acc, &multiply_ntts(&a[i][j], &s_hat[j]))
            })
        })
        .collect();
    let mut ek = Vec::new();
    byte_encode(&t_hat, 12, &mut ek);
    ek.extend_from_slice(&rho);
    let mut dk = Vec::new();
    byte_encode(&s_hat, 12, &mut dk);
    (ek, dk)
}

/// Algorithm 14.
fn pke_encrypt(p: &Params, ek: &[u8], m: &[u8; 32], r: &[u8; 32]) -> Vec<u8> {
    let t_hat = byte_decode_vec(ek, 12, p.k);
    let a = matrix(p, &ek[384 * p.k..]);
    let mut n = 0u8;
    let mut sample = |eta| {
        let f = sample_cbd(&prf(eta, r, n), eta);
        n += 1;
        f
    };
    let y: Vec<Poly> = (0..p.k).map(|_| sample(p.eta1)).collect();
    let e1: Vec<Poly> = (0..p.k).map(|_| sample(p.eta2)).collect();
    let e2 = sample(p.eta2);
    let y_hat: Vec<Poly> = y.iter().map(ntt).collect();
    let u: Vec<Poly> = (0..p.k)
        .map(|i| {
            let sum = (0..p.k).fold([0; N], |acc, j| {
                add(&acc, &multiply_ntts(&a[j][i], &y_hat[j]))
            });
            add(&ntt_inverse(&sum), &e1[i])
        })
        .collect();
    let mu = decompress(&byte_decode(m, 1), 1);
    let tv = (0..p.k).fold([0; N], |acc, j| {
        add(&acc, &multiply_ntts(&t_hat[j], &y_hat[j]))
    });
    let v = add(&add(&ntt_inverse(&tv), &e2), &mu);
    let mut c = Vec::new();
    byte_encode(
        &u.iter().map(|f| compress(f, p.du)).collect::<Vec<_>>(),
        p.du,
        &mut c,
    );
    byte_encode(&[compress(&v, p.dv)], p.dv, &mut c);
    c
}

/// Algorithm 15.
fn pke_decrypt(p: &Params, dk: &[u8], c: &[u8]) -> [u8; 32] {
    let split = 32 * p.du as usize * p.k;
    let u: Vec<Poly> = byte_decode_vec(&c[..split], p.du, p.k)
        .iter()
        .map(|f| decompress(f, p.du))
        .collect();
    let v = decompress(&byte_decode(&c[split..], p.dv), p.dv);
    let s_hat = byte_decode_vec(dk, 12, p.k);
    let su = (0..p.k).fold([0; N], |acc, i| {
        add(&acc, &multiply_ntts(&s_hat[i], &ntt(&u[i])))
    });
    let su = ntt_inverse(&su);
    let w: Poly = std::array::from_fn(|i| (v[i] + Q - su[i]) % Q);
    let mut m = Vec::new();
    byte_encode(&[compress(&w, 1)], 1, &mut m);
    m.try_into().expect("32 bytes")
}

/// Algorithm 16 (ML-KEM.KeyGen_internal): (ek, dk).
pub fn keygen(p: &Params, d: &[u8; 32], z: &[u8; 32]) -> (Vec<u8>, Vec<u8>) {
    let (ek, mut dk) = pke_keygen(p, d);
    dk.extend_from_slice(&ek);
    dk.extend_from_slice(&h(&ek));
    dk.extend_from_slice(z);
    (ek, dk)
}

/// Algorithm 17 (ML-KEM.Encaps_internal): (ciphertext, shared key).
pub fn encaps(p: &Params, ek: &[u8], m: &[u8; 32]) -> (Vec<u8>, [u8; 32]) {
    let (key, r) = g(&[m.as_slice(), &h(ek)].concat());
    (pke_encrypt(p, ek, m, &r), key)
}

/// Algorithm 18 (ML-KEM.Decaps_internal).
pub fn decaps(p: &Params, dk: &[u8], c: &[u8]) -> [u8; 32] {
    let dk_pke = &dk[..384 * p.k];
    let ek = &dk[384 * p.k..768 * p.k + 32];
    let hash = &dk[768 * p.k + 32..768 * p.k + 64];
    let z = &dk[768 * p.k + 64..];
    let m = pke_decrypt(p, dk_pke, c);
    let (key, r) = g(&[m.as_slice(), hash].concat());
    if pke_encrypt(p, ek, &m, &r) == c {
        key
    } else {
        j(z, c)
    }
}
