from costcalc.cli import console

console()
