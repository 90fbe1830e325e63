import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { DeleteRegistrationCommand, ListRegistrationsCommand, RegisterSiteCommand, RegistrationsByTokenCommand, TokenSubjects } from '@bastion/contracts';
import { AdmissionService } from './admission.service';

@Controller()
export class AdmissionController {
  constructor(private readonly admission: AdmissionService) {}

  @MessagePattern(TokenSubjects.register)
  register(@Payload() cmd: RegisterSiteCommand) {
    return this.admission.register(cmd);
  }

  @MessagePattern(TokenSubjects.listRegistrations)
  list(@Payload() cmd: ListRegistrationsCommand) {
    return this.admission.list(cmd);
  }

  @MessagePattern(TokenSubjects.registrationsByToken)
  byToken(@Payload() cmd: RegistrationsByTokenCommand) {
    return this.admission.byToken(cmd);
  }

  @MessagePattern(TokenSubjects.deleteRegistration)
  delete(@Payload() cmd: DeleteRegistrationCommand) {
    return this.admission.deleteRegistration(cmd);
  }
}
