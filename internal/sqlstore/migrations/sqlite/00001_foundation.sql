-- +goose Up
-- Times are unix microseconds (UTC) in BIGINT columns; money, when it
-- arrives, is never stored as a float.
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE tenants (
    id                        TEXT PRIMARY KEY,
    name                      TEXT NOT NULL,
    tin                       TEXT NOT NULL,
    id_type                   TEXT NOT NULL,
    id_value                  TEXT NOT NULL,
    sst_number                TEXT NOT NULL,
    ttx_number                TEXT NOT NULL,
    msic_code                 TEXT NOT NULL,
    activity                  TEXT NOT NULL,
    address_line1             TEXT NOT NULL,
    address_line2             TEXT NOT NULL,
    address_line3             TEXT NOT NULL,
    city                      TEXT NOT NULL,
    state                     TEXT NOT NULL,
    post_code                 TEXT NOT NULL,
    country_code              TEXT NOT NULL,
    phone                     TEXT NOT NULL,
    email                     TEXT NOT NULL,
    contact_name              TEXT NOT NULL,
    fax                       TEXT NOT NULL,
    auth_environment          TEXT NOT NULL,
    auth_mode                 TEXT NOT NULL,
    auth_on_behalf_of         TEXT NOT NULL,
    auth_client_id            TEXT NOT NULL,
    auth_client_secret_enc    TEXT NOT NULL,
    auth_certificate_pem      TEXT NOT NULL,
    auth_private_key_enc      TEXT NOT NULL,
    auth_pkcs12_enc           TEXT NOT NULL,
    auth_pkcs12_password_enc  TEXT NOT NULL,
    created_at                BIGINT NOT NULL,
    updated_at                BIGINT NOT NULL
);

CREATE TABLE api_keys (
    id          TEXT PRIMARY KEY,
    tenant_id   TEXT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    prefix      TEXT NOT NULL,
    hash        BLOB NOT NULL UNIQUE,
    permission  TEXT NOT NULL CHECK (permission IN ('read', 'read-write')),
    created_at  BIGINT NOT NULL,
    revoked_at  BIGINT
);
CREATE INDEX api_keys_tenant ON api_keys (tenant_id, created_at);

CREATE TABLE parties (
    id                TEXT PRIMARY KEY,
    tenant_id         TEXT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    kind              TEXT NOT NULL CHECK (kind IN ('buyer', 'seller')),
    name              TEXT NOT NULL,
    tin               TEXT NOT NULL,
    id_type           TEXT NOT NULL,
    id_value          TEXT NOT NULL,
    sst_number        TEXT NOT NULL,
    ttx_number        TEXT NOT NULL,
    msic_code         TEXT NOT NULL,
    activity          TEXT NOT NULL,
    is_draft          INTEGER NOT NULL,
    address_line1     TEXT NOT NULL,
    address_line2     TEXT NOT NULL,
    address_line3     TEXT NOT NULL,
    city              TEXT NOT NULL,
    state             TEXT NOT NULL,
    post_code         TEXT NOT NULL,
    country_code      TEXT NOT NULL,
    phone             TEXT NOT NULL,
    email             TEXT NOT NULL,
    contact_name      TEXT NOT NULL,
    fax               TEXT NOT NULL,
    created_at        BIGINT NOT NULL,
    updated_at        BIGINT NOT NULL
);
CREATE INDEX parties_list ON parties (tenant_id, kind, created_at DESC, id DESC);
CREATE INDEX parties_tin ON parties (tenant_id, kind, tin);

-- The rate-limit windows, used when the limiter lives in the database.
CREATE TABLE rate_windows (
    key_id        TEXT PRIMARY KEY,
    window_start  BIGINT NOT NULL,
    hits          BIGINT NOT NULL
);

-- +goose Down
DROP TABLE rate_windows;
DROP TABLE parties;
DROP TABLE api_keys;
DROP TABLE tenants;
DROP TABLE meta;
