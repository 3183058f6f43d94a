"""Mail views: what every mail to a player says, as text + HTML with the board attached."""
