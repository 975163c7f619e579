// Test helpers: RSA and EC keys made with OpenSSL in memory, as PEM text, and files of them in
// a temporary directory. For the unit tests of the authentication code only.
#pragma once

#include <openssl/evp.h>
#include <openssl/pem.h>

#include <string>

namespace nicbench::protocol::testkeys {

struct PemPair {
  std::string private_pem;
  std::string public_pem;
};

inline std::string BioText(BIO* bio) {
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio, &data);
  std::string text(data, static_cast<size_t>(n));
  BIO_free(bio);
  return text;
}

inline PemPair ToPem(EVP_PKEY* key) {
  PemPair out;
  BIO* priv = BIO_new(BIO_s_mem());
  PEM_write_bio_PrivateKey(priv, key, nullptr, nullptr, 0, nullptr, nullptr);
  out.private_pem = BioText(priv);
  BIO* pub = BIO_new(BIO_s_mem());
  PEM_write_bio_PUBKEY(pub, key);
  out.public_pem = BioText(pub);
  EVP_PKEY_free(key);
  return out;
}

// One RSA key pair for the whole test binary (making one takes tens of milliseconds).
inline const PemPair& Rsa2048() {
  static const PemPair pair = ToPem(EVP_RSA_gen(2048));
  return pair;
}
inline const PemPair& OtherRsa2048() {
  static const PemPair pair = ToPem(EVP_RSA_gen(2048));
  return pair;
}
inline PemPair Ec256() { return ToPem(EVP_EC_gen("P-256")); }

}  // namespace nicbench::protocol::testkeys
