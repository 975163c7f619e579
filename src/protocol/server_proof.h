// The server's proof of its key, between nicbench ends (run --server-key, docs/security.md):
// iperf3's authentication tells the server who the client is, never the client who the server
// is. A client that pins the server's public key sends a fresh random nonce in the parameters'
// extension ("prove_key"); the server signs
//   "nicbench server proof v1\n" COOKIE "\n" NONCE
// with its RSA private key (RSA-PSS, SHA-256) and sends the signature back before anything else
// of the test; the client checks it with the pinned key. The test's cookie and the client's
// nonce are both in it, so a signature cannot be replayed for another test, and the fixed
// prefix keeps it from being anything but this proof.
//
// Thread safety: pure functions; an RsaKey may be used from several threads at once.
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"
#include "protocol/auth_token.h"

namespace nicbench::protocol {

// Characters of a nonce on the wire: base64 of kProofNonceBytes random bytes.
inline constexpr size_t kProofNonceBytes = 32;
inline constexpr size_t kProofNonceChars = 44;
// A 16384-bit key's signature in base64; a longer one is refused unread.
inline constexpr size_t kMaxProofSignatureChars = 2732;

// A fresh nonce from getrandom(2), base64.
std::string MakeProofNonce();

// The bytes that are signed.
std::string ServerProofMessage(std::string_view cookie, std::string_view nonce);

// Base64 of the RSA-PSS (SHA-256) signature of ServerProofMessage(cookie, nonce).
// REQUIRES: private_key.is_private().
Result<std::string> SignServerProof(const RsaKey& private_key, std::string_view cookie,
                                    std::string_view nonce);

// Ok when `signature` (base64) is the signature of ServerProofMessage(cookie, nonce) by the
// private half of `public_key`; else why not (not base64, wrong size, does not verify).
Status VerifyServerProof(const RsaKey& public_key, std::string_view cookie, std::string_view nonce,
                         std::string_view signature);

}  // namespace nicbench::protocol
