#!/usr/bin/env bats
# Both Dockerfiles must build with BuildKit and with the builders without it (Docker's legacy
# builder, buildah/podman): no `# syntax=` line (it pulls a frontend image from a registry on
# every build host) and no instruction or flag only BuildKit's Dockerfile frontend knows.
# deploy/test/engine-e2e.sh builds them for real on whatever engine answers.

load helpers

# Prints "file:line: text" for every line of the Dockerfiles matching the extended regex.
dockerfile_lines() { # regex
  grep -nHE -- "$1" "$REPO_ROOT/server/Dockerfile" "$REPO_ROOT/web/Dockerfile" || true
}

@test "no '# syntax=' parser directive in either Dockerfile" {
  local found
  found=$(dockerfile_lines '^#[[:space:]]*syntax[[:space:]]*=')
  [[ -z $found ]] || fail_with "syntax directive found: $found"
}

@test "no heredoc in either Dockerfile" {
  local found
  found=$(dockerfile_lines '^[[:space:]]*(RUN|COPY|ADD)[[:space:]].*<<-?[[:space:]]*["'"'"']?[A-Za-z_]+')
  [[ -z $found ]] || fail_with "heredoc found (BuildKit only): $found"
}

@test "no BuildKit-only flags (--mount, --chmod, --link, --checksum, --parents, --exclude, --network, --security)" {
  local found
  found=$(dockerfile_lines '^[[:space:]]*(RUN|COPY|ADD)[[:space:]].*--(mount|chmod|link|checksum|parents|exclude|network|security)([=[:space:]]|$)')
  [[ -z $found ]] || fail_with "BuildKit-only flag found: $found"
}

@test "every file the Dockerfiles COPY from the context exists and is not excluded by .dockerignore" {
  local df src
  for df in server/Dockerfile web/Dockerfile; do
    while read -r src; do
      [[ -e $REPO_ROOT/$src ]] || fail_with "$df copies $src, which does not exist"
    done < <(awk '$1 == "COPY" && $2 !~ /^--from=/ { for (i = 2; i < NF; i++) print $i }' "$REPO_ROOT/$df")
  done
  # The resolver fix-up is a file of the context since it is no heredoc any more.
  ! grep -qE '^(web/)?docker-entrypoint\.d|^\*\*/\*\.envsh' "$REPO_ROOT/.dockerignore" ||
    fail_with ".dockerignore excludes web/docker-entrypoint.d"
}
