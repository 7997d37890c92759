// What no command sees and no file tool opens: credentials and keys under the home directory.

/** Paths under the home directory, on every platform (macOS's keychains among them). */
export const HIDDEN_FROM_COMMANDS = [
  ".ssh",
  ".aws",
  ".azure",
  ".config/gcloud",
  ".config/gh",
  ".config/hub",
  ".gnupg",
  ".docker/config.json",
  ".kube",
  ".netrc",
  ".npmrc",
  ".pypirc",
  ".git-credentials",
  ".pgpass",
  ".vault-token",
  ".cargo/credentials",
  ".cargo/credentials.toml",
  ".gem/credentials",
  ".terraform.d/credentials.tfrc.json",
  ".password-store",
  ".local/share/keyrings",
  "Library/Keychains",
];
