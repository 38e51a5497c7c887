--[[
  Closes the pass of a session that ended in its room (idle: end-idle-sessions-5.lua), in the user's slot: its
  token stops admitting (includes/ended-session-pass.lua). Run by the admission leader after the room's call; a
  session whose pass was never granted (no token left an intake) has nothing to close.

  KEYS[1] the user's passes  {p}:pass:<roomId>:<userId>
  ARGV[1] ticket id

  Returns 1.
]]
--- @include "ended-session-pass"
ended_session_pass(KEYS[1], ARGV[1])
return 1
