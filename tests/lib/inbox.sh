# inbox.sh - a public-inbox v2 archive for the list tests (t80*): mails
# delivered with public-inbox-mda, commits made onto an epoch by hand.
# Source after test-lib.sh, then call inbox_env.

# inbox_env: INBOX (the archive's folder), D (the captured mails of
# tests/data/lists), and HOME and PI_CONFIG: public-inbox's own settings
# in the scratch folder, not in ~.
inbox_env() {
	export HOME=$SCRATCH/pihome PI_CONFIG=$SCRATCH/pihome/pi_config
	mkdir -p "$HOME"
	D=$TOP/tests/data/lists
	INBOX=$SCRATCH/inbox
}

deliver() {
	ORIGINAL_RECIPIENT=sched@example.org public-inbox-mda --no-precheck <"$1"
}

# One commit with file m holding the mail $2, onto epoch $1 of the archive
# (a new epoch is made the way public-inbox makes one: a bare repository
# git/N.git, one commit per message).
commit_epoch() {
	g=$INBOX/git/$1.git w=$SCRATCH/epoch$1
	[ -d "$g" ] || git init -q --bare "$g"
	rm -rf "$w" && git clone -q "$g" "$w" 2>/dev/null &&
	cp "$2" "$w/m" && git -C "$w" add m &&
	git -C "$w" -c user.name=t -c user.email=t@example.org \
		commit -q -m "$(basename "$2")" &&
	git -C "$w" push -q origin HEAD:refs/heads/master
}

# inbox_init: an empty public-inbox v2 archive "sched" in $INBOX, for
# sched@example.org (the address a delivered mail must name in To/Cc),
# with public-inbox-mda's spam check off.
inbox_init() {
	public-inbox-init -V2 sched "$INBOX" http://127.0.0.1/sched \
		sched@example.org &&
	git config -f "$PI_CONFIG" publicinboxmda.spamcheck none
}
