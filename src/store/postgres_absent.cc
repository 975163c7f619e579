// A build without libpq (the static binary: libpq's static archive needs Kerberos, LDAP and
// OpenSSL archives Debian does not ship). SQLite stores still work; a PostgreSQL URL is refused.
#include "store/backends.h"

namespace nicbench::store {

bool HavePostgres() { return false; }

Result<std::unique_ptr<Connection>> OpenPostgres(const std::string& url, std::chrono::milliseconds) {
  return Fail(RedactUrl(url) + ": this nicbench was built without PostgreSQL support (the static "
              "build leaves it out; see `nicbench --version`); use a SQLite --store PATH");
}

}  // namespace nicbench::store
